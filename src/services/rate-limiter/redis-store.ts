import { performance } from 'node:perf_hooks';
import type { Redis, Result } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { connectRedis, type RedisTarget } from '../../infrastructure/redis-client.js';
import { redisReady } from '../../infrastructure/redis-ready.js';
import { ThrottledFailureLog, type LimiterLog } from './failure-log.js';
import { RATE_LIMIT_WINDOW_SECONDS, type RateLimitDecision, type RateLimiter, type StoreFailure } from './rate-limiter.js';

export interface RedisRateLimiterOptions {
  /** redis:// or rediss:// URL. ioredis options in the query string are honoured (e.g. `?keyPrefix=staging:`). */
  url: string;
  /** The sentinels that name the primary (REDIS_SENTINELS); absent: `url`'s host is the primary. */
  sentinels?: RedisTarget['sentinels'];
  log: LimiterLog;
  windowSeconds?: number;
  /** Upper bound of one call's wait on Redis, in ms. Default 100. */
  timeoutMs?: number;
  /**
   * After a timeout, calls skip Redis (fail open at once) for this long, in ms, so a slow Redis
   * costs one request the wait, not all of them. Default 1000. (Other failures are immediate.)
   */
  retryAfterFailureMs?: number;
  /** After this many consecutive timeouts the connection is dropped and made anew. Default 3. */
  reconnectAfterTimeouts?: number;
  /** At most one "store unavailable" log line per this many ms. Default 30000. */
  logIntervalMs?: number;
}

/** Upper bound of a refund's wait on Redis, in ms (the client's commandTimeout). */
const REFUND_TIMEOUT_MS = 1000;

/** Key names inside Redis: `<ioredis keyPrefix><KEY_PREFIX>:<bucket>`. */
const KEY_PREFIX = 'epa:rl';

/**
 * A lease of a window's budget (RedisRateLimiter.lease): how many requests were granted (0: the
 * window's budget is spent, and this request was counted as refused), what Redis has left after
 * it, and when the window ends on this process's performance.now() clock.
 */
export interface LeaseGrant {
  granted: number;
  remaining: number;
  endsAt: number;
}

/**
 * KEYS[1] the bucket's counter; ARGV limit, block, window in ms. The same counter and window as
 * rate-limiter-flexible's (a key set to 0 with the window's expiry when absent, then INCRBY), so
 * both may count one bucket. Grants min(block, what is left); with nothing left it counts one
 * refused request, as a refused `consume` is counted. Returns {granted, counted, ms to the end}.
 */
const LEASE_SCRIPT = `
redis.call('SET', KEYS[1], 0, 'PX', ARGV[3], 'NX')
local used = tonumber(redis.call('GET', KEYS[1]))
local granted = math.min(tonumber(ARGV[2]), tonumber(ARGV[1]) - used)
if granted < 1 then
  granted = 0
  used = redis.call('INCR', KEYS[1])
else
  used = redis.call('INCRBY', KEYS[1], granted)
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  ttl = tonumber(ARGV[3])
end
return {granted, used, ttl}
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    rateLimitLease(key: string, limit: number, block: number, windowMs: number): Result<[number, number, number], Context>;
  }
}

/** Counting in Redis (rate-limiter-flexible's atomic Lua script): one budget for all processes. */
export class RedisRateLimiter implements RateLimiter {
  readonly client: Redis;
  private readonly windowSeconds: number;
  private readonly timeoutMs: number;
  private readonly retryAfterFailureMs: number;
  private readonly reconnectAfterTimeouts: number;
  private readonly log: ThrottledFailureLog;
  /** One rate-limiter-flexible limiter per distinct budget; all share one key space. */
  private readonly limiters = new Map<number, RateLimiterRedis>();
  private skipUntil = 0;
  private consecutiveTimeouts = 0;
  private closed = false;

  constructor(options: RedisRateLimiterOptions) {
    this.windowSeconds = options.windowSeconds ?? RATE_LIMIT_WINDOW_SECONDS;
    this.timeoutMs = options.timeoutMs ?? 100;
    this.retryAfterFailureMs = options.retryAfterFailureMs ?? 1000;
    this.reconnectAfterTimeouts = options.reconnectAfterTimeouts ?? 3;
    this.log = new ThrottledFailureLog(options.log, options.logIntervalMs ?? 30_000);
    // Options given here win over the URL's query string (ioredis fills only what is missing).
    this.client = connectRedis({ url: options.url, sentinels: options.sentinels }, {
      // A command sent while disconnected fails at once instead of queueing until reconnect.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      // Each call's wait is bounded by `timeoutMs` below; this looser bound also covers the
      // connection's ready check (INFO), so a peer that accepts but never answers is dropped
      // and dialled again, without tripping over a start-up pause of the event loop.
      commandTimeout: 1000,
      connectTimeout: 1000,
      // Reconnect forever (quickly at first, then once a second): recovery needs nobody.
      retryStrategy: (attempt: number) => Math.min(attempt * 100, 1000),
      lazyConnect: false,
    });
    this.client.defineCommand('rateLimitLease', { numberOfKeys: 1, lua: LEASE_SCRIPT });
    // Without a listener ioredis prints every connection error; these go to the throttled log.
    this.client.on('error', (error: Error) => this.log.connectionError(error));
    this.client.on('ready', () => {
      this.skipUntil = 0;
      this.log.recovered();
    });
  }

  connected(withinMs: number): Promise<void> {
    return redisReady(this.client, withinMs);
  }

  async consume(bucket: string, limit: number): Promise<RateLimitDecision> {
    const attempt = this.bounded(() =>
      this.limiter(limit)
        .consume(bucket)
        .then(
          (res) => ({ res, limited: false }),
          (rejection: unknown) => {
            if (rejection instanceof RateLimiterRes) return { res: rejection, limited: true };
            throw rejection;
          },
        ),
    );
    const outcome = await attempt;
    if ('status' in outcome) return outcome;
    return {
      status: outcome.limited ? 'limited' : 'allowed',
      limit,
      remaining: outcome.res.remainingPoints,
      resetMs: Math.max(outcome.res.msBeforeNext, 0),
    };
  }

  /**
   * Takes up to `block` requests of `bucket`'s window at once (docs/adr/0062-rate-limit-leases.md):
   * the same counter `consume` counts in, never past `limit`; when nothing is left, one request
   * is counted (refused, as `consume` counts a refused one). Bounded and failing open like
   * `consume`. `startedAt` is performance.now() before the call, so the caller's end of the
   * window is never later than Redis's.
   */
  async lease(bucket: string, limit: number, block: number): Promise<LeaseGrant | Extract<RateLimitDecision, { status: 'unchecked' }>> {
    const startedAt = performance.now();
    const key = `${KEY_PREFIX}:${bucket}`;
    const outcome = await this.bounded(() => this.client.rateLimitLease(key, limit, block, this.windowSeconds * 1000));
    if (!Array.isArray(outcome)) return outcome;
    const [granted, used, ttl] = outcome;
    return { granted, remaining: Math.max(limit - used, 0), endsAt: startedAt + Math.max(ttl, 0) };
  }

  /**
   * `call` within `timeoutMs`, or the reason it was not answered: a timeout opens the circuit for
   * `retryAfterFailureMs` (and enough of them in a row make the connection anew).
   */
  private async bounded<T extends object>(call: () => Promise<T>): Promise<T | Extract<RateLimitDecision, { status: 'unchecked' }>> {
    if (this.closed) return { status: 'unchecked', reason: 'not_connected' };
    if (performance.now() < this.skipUntil) {
      this.log.failure('circuit_open');
      return { status: 'unchecked', reason: 'circuit_open' };
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.timeoutMs);
    });
    const attempt = call();
    try {
      const outcome = await Promise.race([attempt, timeout]);
      if (outcome === 'timeout') {
        attempt.catch(() => undefined); // its late failure is already accounted for
        return this.failed('timeout');
      }
      this.consecutiveTimeouts = 0;
      this.log.recovered();
      return outcome;
    } catch (error) {
      const notReady = error instanceof Error && /not ready|writeable|closed/i.test(error.message);
      const timedOut = error instanceof Error && /timed out/i.test(error.message);
      return this.failed(timedOut ? 'timeout' : notReady ? 'not_connected' : 'error', error);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * rate-limiter-flexible's reward (one point back); failures are ignored. Nobody waits on a
   * refund, so it gets the connection's whole command bound (1 s) rather than `timeoutMs`: a
   * refund lost to a slow Redis would leave a success counted as a failure.
   */
  async refund(bucket: string, limit: number): Promise<void> {
    if (this.closed) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, REFUND_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.limiter(limit).reward(bucket, 1).then(() => undefined), timeout]);
    } catch {
      // A refund lost to a failing store only leaves one attempt counted until the window ends.
    } finally {
      clearTimeout(timer);
    }
  }

  async ping(timeoutMs: number): Promise<boolean> {
    if (this.closed || this.client.status !== 'ready') return false;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    try {
      return await Promise.race([this.client.ping().then((answer) => answer === 'PONG'), timeout]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.client.status === 'ready') {
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise((resolve) => (timer = setTimeout(resolve, 500)));
      await Promise.race([this.client.quit().catch(() => undefined), bound]);
      clearTimeout(timer);
    }
    this.client.disconnect();
  }

  private failed(reason: StoreFailure, error?: unknown): Extract<RateLimitDecision, { status: 'unchecked' }> {
    this.log.failure(reason, error);
    if (reason !== 'timeout') return { status: 'unchecked', reason };
    this.skipUntil = performance.now() + this.retryAfterFailureMs;
    if (++this.consecutiveTimeouts >= this.reconnectAfterTimeouts) {
      // A connection that stays silent (half-open TCP, hung peer) is never closed by ioredis on
      // its own; a fresh one either works or fails fast, and ioredis keeps retrying.
      this.consecutiveTimeouts = 0;
      this.client.disconnect(true);
    }
    return { status: 'unchecked', reason };
  }

  private limiter(limit: number): RateLimiterRedis {
    let limiter = this.limiters.get(limit);
    if (limiter === undefined) {
      limiter = new RateLimiterRedis({
        storeClient: this.client,
        keyPrefix: KEY_PREFIX,
        points: limit,
        duration: this.windowSeconds,
        // Fail at once when the connection is not ready, rather than waiting on a timeout.
        rejectIfRedisNotReady: true,
      });
      this.limiters.set(limit, limiter);
    }
    return limiter;
  }
}
