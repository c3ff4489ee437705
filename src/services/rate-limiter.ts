import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Clock } from '../clock.js';
import { redisReady } from './redis-ready.js';

/**
 * Fixed-window request counting behind one small interface, with an in-process store and a
 * Redis store (shared by every process pointing at the same Redis).
 *
 * Window semantics, the same in both stores: a bucket's window opens with its first request
 * and lasts `windowSeconds`; every request in it counts (rejected ones too); when it ends the
 * bucket is whole again.
 *
 * The Redis store never throws and never makes a request wait on a dead or slow Redis: a call
 * that cannot be answered within `timeoutMs` comes back `unchecked`, and the caller lets the
 * request through (fail OPEN). Request budgets have deliberately no in-process "insurance"
 * limiter: a per-process count during an outage would hand every process its own budget (N
 * times the limit) while looking authoritative; letting requests through, counted in metrics and
 * logged, is the honest degradation the design asks for. The security throttles (failed admin
 * tokens, cabinet sign-ins) are the exception: for them an unchecked attempt falls back to an
 * in-process count (plugins/rate-limit.ts, `attempts`), since unlimited guessing is worse than
 * N budgets.
 */
export interface RateLimiter {
  /** Counts one request against `bucket`, whose budget per window is `limit`. Never rejects. */
  /** The memory store answers synchronously (no promise per request); Redis with a promise. */
  consume(bucket: string, limit: number): RateLimitDecision | Promise<RateLimitDecision>;
  /** Takes back one request counted in `bucket`'s current window (an attempt that succeeded). */
  refund(bucket: string, limit: number): void | Promise<void>;
  /**
   * Resolves once the store can answer, when it has failed to connect, or after `withinMs`,
   * whichever comes first; never rejects (a store that is down does not stop the app starting).
   */
  connected(withinMs: number): Promise<void>;
  /** Releases connections; the limiter is unusable afterwards. */
  close(): Promise<void>;
  /**
   * Whether the shared store (Redis) answers a PING within `timeoutMs`; absent for the in-process
   * store, which has nothing to reach (readiness reports Redis only when REDIS_URL is set).
   */
  ping?(timeoutMs: number): Promise<boolean>;
}

export type RateLimitDecision =
  | {
      status: 'allowed' | 'limited';
      limit: number;
      /** Requests still allowed in the current window (0 when limited). */
      remaining: number;
      /** Milliseconds until the current window ends. */
      resetMs: number;
    }
  /** The store did not answer: the request was not counted. */
  | { status: 'unchecked'; reason: StoreFailure };

/**
 * `not_connected`: no usable connection (refused, closed, or connected but never ready);
 * `timeout`: no answer within the budget; `error`: the store answered with an error;
 * `circuit_open`: skipped without asking, shortly after a failure (see `retryAfterFailureMs`).
 */
export type StoreFailure = 'not_connected' | 'timeout' | 'error' | 'circuit_open';

/** The spec's window: budgets are per minute. */
export const RATE_LIMIT_WINDOW_SECONDS = 60;

/** The part of a pino/Fastify logger the limiter uses. */
export interface LimiterLog {
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

/**
 * In-process counting: one budget per process. Time comes from `clock` (the app's), so tests
 * move it instead of sleeping; that is why this is a few lines of our own rather than
 * rate-limiter-flexible's RateLimiterMemory, which reads Date.now() and sets timers.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { count: number; endsAt: number }>();
  private readonly windowMs: number;
  private nextSweep = 0;

  constructor(
    private readonly clock: Clock,
    windowSeconds = RATE_LIMIT_WINDOW_SECONDS,
  ) {
    this.windowMs = windowSeconds * 1000;
  }

  consume(bucket: string, limit: number): RateLimitDecision {
    const now = this.clock.now().getTime();
    this.sweep(now);
    let window = this.windows.get(bucket);
    if (window === undefined || window.endsAt <= now) {
      window = { count: 0, endsAt: now + this.windowMs };
      this.windows.set(bucket, window);
    }
    window.count += 1;
    return {
      status: window.count > limit ? 'limited' : 'allowed',
      limit,
      remaining: Math.max(limit - window.count, 0),
      resetMs: window.endsAt - now,
    };
  }

  refund(bucket: string): void {
    const window = this.windows.get(bucket);
    if (window !== undefined && window.count > 0) window.count -= 1;
  }

  async connected(): Promise<void> {}

  async close(): Promise<void> {
    this.windows.clear();
  }

  /** Drops ended windows about once per window length, so memory follows active clients only. */
  private sweep(now: number): void {
    if (now < this.nextSweep) return;
    this.nextSweep = now + this.windowMs;
    for (const [bucket, window] of this.windows) if (window.endsAt <= now) this.windows.delete(bucket);
  }
}

export interface RedisRateLimiterOptions {
  /** redis:// or rediss:// URL. ioredis options in the query string are honoured (e.g. `?keyPrefix=staging:`). */
  url: string;
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
    this.client = new Redis(options.url, {
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
    if (this.closed) return { status: 'unchecked', reason: 'not_connected' };
    if (performance.now() < this.skipUntil) {
      this.log.failure('circuit_open');
      return { status: 'unchecked', reason: 'circuit_open' };
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.timeoutMs);
    });
    const attempt = this.limiter(limit)
      .consume(bucket)
      .then(
        (res) => ({ res, limited: false }),
        (rejection: unknown) => {
          if (rejection instanceof RateLimiterRes) return { res: rejection, limited: true };
          throw rejection;
        },
      );
    try {
      const outcome = await Promise.race([attempt, timeout]);
      if (outcome === 'timeout') {
        attempt.catch(() => undefined); // its late failure is already accounted for
        return this.failed('timeout');
      }
      this.consecutiveTimeouts = 0;
      this.log.recovered();
      return {
        status: outcome.limited ? 'limited' : 'allowed',
        limit,
        remaining: outcome.res.remainingPoints,
        resetMs: Math.max(outcome.res.msBeforeNext, 0),
      };
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

  private failed(reason: StoreFailure, error?: unknown): RateLimitDecision {
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

/**
 * One warning when the store starts failing, then at most one per interval saying how many
 * requests went unchecked meanwhile, and one info line when it answers again. Connection
 * errors (ioredis retries every second while Redis is away) go through the same throttle.
 */
class ThrottledFailureLog {
  private failing = false;
  private lastLogged = -Infinity;
  private uncheckedSinceLog = 0;
  private uncheckedSinceDown = 0;

  constructor(
    private readonly log: LimiterLog,
    private readonly intervalMs: number,
  ) {}

  /** A request let through unchecked. */
  failure(reason: StoreFailure, error?: unknown): void {
    this.uncheckedSinceLog += 1;
    this.uncheckedSinceDown += 1;
    this.note(reason, error);
  }

  /** The connection failed (no request involved). */
  connectionError(error: Error): void {
    this.note('not_connected', error);
  }

  recovered(): void {
    if (!this.failing) return;
    this.log.info({ unchecked_requests: this.uncheckedSinceDown }, 'rate limiter store reachable again');
    this.failing = false;
    this.uncheckedSinceDown = 0;
    this.uncheckedSinceLog = 0;
    this.lastLogged = -Infinity;
  }

  private note(reason: StoreFailure, error: unknown): void {
    this.failing = true;
    const now = performance.now();
    if (now - this.lastLogged < this.intervalMs) return;
    this.lastLogged = now;
    this.log.warn(
      {
        reason,
        error: error instanceof Error ? error.message : undefined,
        unchecked_requests: this.uncheckedSinceLog,
      },
      'rate limiter store unavailable: requests pass unchecked (fail open)',
    );
    this.uncheckedSinceLog = 0;
  }
}

export interface RateLimiterFactoryOptions {
  redisUrl: string | undefined;
  /** RedisRateLimiterOptions.timeoutMs. */
  timeoutMs?: number | undefined;
  clock: Clock;
  log: LimiterLog;
}

/** Redis when a URL is configured, otherwise memory. */
export function createRateLimiter({ redisUrl, timeoutMs, clock, log }: RateLimiterFactoryOptions): RateLimiter {
  return redisUrl === undefined ? new MemoryRateLimiter(clock) : new RedisRateLimiter({ url: redisUrl, log, ...(timeoutMs === undefined ? {} : { timeoutMs }) });
}
