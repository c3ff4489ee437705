import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import { claimSignatureNonce, purgeSignatureNonces } from '../db/repositories/signature-nonces-repository.js';
import type { Db } from '../db/schema/index.js';
import { ApiError } from '../errors.js';
import { connectRedis, type RedisTarget } from '../infrastructure/redis-client.js';
import { redisReady } from '../infrastructure/redis-ready.js';

/**
 * Which timestamped signatures (docs/contract.md §7.7) have been accepted already, so that each is
 * accepted once: in Redis when REDIS_URL is set, else in PostgreSQL when DATABASE_URL is set
 * (both shared by every API process), else in this process's memory (the embedded default is
 * one process).
 */
export interface SignatureNonces {
  /**
   * Records `id` until `expiresAt`; true the first time, false for a replay. Rejects with
   * ApiError `unavailable` when the store cannot say (the request is refused, never let through).
   */
  claim(id: string, expiresAt: Date): Promise<boolean>;
  /** Resolves once the store can answer, or after `withinMs` (start-up waits on it, never fails). */
  connected(withinMs: number): Promise<void>;
  close(): Promise<void>;
}

export interface NonceLog {
  warn(fields: object, message: string): void;
}

/** One process: a map, swept of expired entries at most once a minute. */
export class MemorySignatureNonces implements SignatureNonces {
  private readonly used = new Map<string, number>();
  private nextSweep = 0;

  constructor(private readonly clock: Clock) {}

  claim(id: string, expiresAt: Date): Promise<boolean> {
    const now = this.clock.now().getTime();
    if (now >= this.nextSweep) {
      this.nextSweep = now + 60_000;
      for (const [key, until] of this.used) if (until <= now) this.used.delete(key);
    }
    const until = this.used.get(id);
    if (until !== undefined && until > now) return Promise.resolve(false);
    this.used.set(id, expiresAt.getTime());
    return Promise.resolve(true);
  }

  async connected(): Promise<void> {}

  async close(): Promise<void> {
    this.used.clear();
  }
}

/** PostgreSQL (or PGlite): a row per accepted signature, expired rows deleted every minute. */
export class DatabaseSignatureNonces implements SignatureNonces {
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    log: NonceLog,
  ) {
    this.timer = setInterval(() => {
      purgeSignatureNonces(this.db, this.clock.now()).catch((error: unknown) =>
        log.warn({ err: error instanceof Error ? error.message : String(error) }, 'purge of expired signature nonces failed'),
      );
    }, 60_000).unref();
  }

  claim(id: string, expiresAt: Date): Promise<boolean> {
    return claimSignatureNonce(this.db, id, expiresAt, this.clock.now());
  }

  async connected(): Promise<void> {}

  async close(): Promise<void> {
    clearInterval(this.timer);
  }
}

/** Key names inside Redis: `<ioredis keyPrefix>epa:sig:<id>`. */
const KEY_PREFIX = 'epa:sig:';

/** What a signed request gets while the replay store cannot answer (503, docs/adr/0053). */
const UNAVAILABLE_DETAIL = 'signed requests are refused while replay protection is unavailable: retry shortly with a new X-Timestamp';

export interface RedisSignatureNoncesOptions {
  /** Upper bound of one claim's wait on Redis, in ms. Default 200. */
  timeoutMs?: number;
  /**
   * Replicas that must hold a claim before it counts (`WAIT`), so a failover cannot promote a
   * replica that never saw an accepted signature. Default: 1 with sentinels, else 0.
   */
  replicas?: number;
}

/**
 * Redis: `SET NX PX`, one round trip, expiring by itself. It fails CLOSED (docs/adr/0053): a claim
 * Redis does not answer within `timeoutMs` is refused with 503 `unavailable`, never handed to
 * another store. A database fallback would not know the signatures Redis accepted before it went
 * away, so their replays would pass. Behind sentinels, a claim also waits (WAIT, within the same
 * bound) until a replica holds it: replication is asynchronous, and a claim only the old primary
 * held would be forgotten by the replica promoted in its place.
 */
export class RedisSignatureNonces implements SignatureNonces {
  private readonly client: Redis;
  private readonly timeoutMs: number;
  private readonly replicas: number;
  private warned = false;

  constructor(
    target: RedisTarget,
    private readonly clock: Clock,
    private readonly log: NonceLog,
    options: RedisSignatureNoncesOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 200;
    this.replicas = options.replicas ?? (target.sentinels === undefined ? 0 : 1);
    this.client = connectRedis(target, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: Math.max(1000, this.timeoutMs),
      connectTimeout: 1000,
      retryStrategy: (attempt: number) => Math.min(attempt * 100, 1000),
    });
    this.client.on('error', () => undefined);
  }

  async claim(id: string, expiresAt: Date): Promise<boolean> {
    const key = `${KEY_PREFIX}${id}`;
    const ttlMs = Math.max(1, expiresAt.getTime() - this.clock.now().getTime());
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.timeoutMs);
    });
    let claimed = false;
    try {
      const answer = await Promise.race([this.ask(key, ttlMs), timeout]);
      if (answer === 'timeout') throw new Error(`no answer within ${this.timeoutMs} ms`);
      claimed = answer.set;
      if (claimed && answer.replicas < this.replicas) throw new Error(`the claim reached ${answer.replicas} of ${this.replicas} replicas`);
      if (this.warned) this.log.warn({}, 'signature nonces: Redis answers again, signed requests accepted');
      this.warned = false;
      return claimed;
    } catch (error) {
      // A claim Redis may hold although it was refused here: taken back, so that the client's
      // retry of the same signed request is not called a replay. Best effort; if it is lost the
      // retry is refused as a replay and the client signs anew.
      if (claimed) this.client.del(key).catch(() => undefined);
      if (!this.warned) {
        this.warned = true;
        this.log.warn({ err: error instanceof Error ? error.message : String(error) }, 'signature nonces: Redis unavailable, signed requests refused (fail closed)');
      }
      throw new ApiError('unavailable', UNAVAILABLE_DETAIL);
    } finally {
      clearTimeout(timer);
    }
  }

  private async ask(key: string, ttlMs: number): Promise<{ set: boolean; replicas: number }> {
    if (this.replicas === 0) return { set: (await this.client.set(key, '1', 'PX', ttlMs, 'NX')) === 'OK', replicas: 0 };
    // One round trip: WAIT runs right after the SET on the same connection. It gets half the
    // budget, so that its "not enough replicas" answer arrives before the claim's own timeout
    // and the claim can be taken back.
    const results = await this.client
      .pipeline()
      .set(key, '1', 'PX', ttlMs, 'NX')
      .wait(this.replicas, Math.max(1, Math.floor(this.timeoutMs / 2)))
      .exec();
    const [set, waited] = results ?? [];
    const failure = set?.[0] ?? waited?.[0];
    if (failure) throw failure;
    return { set: set?.[1] === 'OK', replicas: Number(waited?.[1]) };
  }

  connected(withinMs: number): Promise<void> {
    return redisReady(this.client, withinMs);
  }

  async close(): Promise<void> {
    this.client.disconnect();
  }
}

export interface SignatureNoncesOptions {
  redis: RedisTarget | undefined;
  /** RedisSignatureNoncesOptions.timeoutMs (SIGNATURE_NONCE_REDIS_TIMEOUT_MS). */
  redisTimeoutMs?: number | undefined;
  databaseUrl: string | undefined;
  db: Db;
  clock: Clock;
  log: NonceLog;
}

/** Redis when configured (failing closed), else PostgreSQL, else memory. */
export function createSignatureNonces({ redis, redisTimeoutMs, databaseUrl, db, clock, log }: SignatureNoncesOptions): SignatureNonces {
  if (redis !== undefined) return new RedisSignatureNonces(redis, clock, log, redisTimeoutMs === undefined ? {} : { timeoutMs: redisTimeoutMs });
  if (databaseUrl !== undefined) return new DatabaseSignatureNonces(db, clock, log);
  return new MemorySignatureNonces(clock);
}
