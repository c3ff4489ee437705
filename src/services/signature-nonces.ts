import { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import { claimSignatureNonce, purgeSignatureNonces } from '../db/repositories/signature-nonces-repository.js';
import type { Db } from '../db/schema/index.js';
import { redisReady } from './redis-ready.js';

/**
 * Which timestamped signatures (docs/contract.md §7.7) have been accepted already, so that each is
 * accepted once: in Redis when REDIS_URL is set, else in PostgreSQL when DATABASE_URL is set
 * (both shared by every API process), else in this process's memory (the embedded default is
 * one process).
 */
export interface SignatureNonces {
  /** Records `id` until `expiresAt`; true the first time, false for a replay. */
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

/**
 * Redis: `SET NX PX`, one round trip, expiring by itself. A Redis that fails or does not answer
 * within `timeoutMs` hands the claim to `fallback` (the database's store), so a Redis outage
 * neither lets replays through nor stops signed requests.
 */
export class RedisSignatureNonces implements SignatureNonces {
  private readonly client: Redis;
  private warned = false;

  constructor(
    url: string,
    private readonly fallback: SignatureNonces,
    private readonly clock: Clock,
    private readonly log: NonceLog,
    private readonly timeoutMs = 200,
  ) {
    this.client = new Redis(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: 1000,
      connectTimeout: 1000,
      retryStrategy: (attempt: number) => Math.min(attempt * 100, 1000),
    });
    this.client.on('error', () => undefined);
  }

  async claim(id: string, expiresAt: Date): Promise<boolean> {
    const ttlMs = Math.max(1, expiresAt.getTime() - this.clock.now().getTime());
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.timeoutMs);
    });
    try {
      const answer = await Promise.race([this.client.set(`${KEY_PREFIX}${id}`, '1', 'PX', ttlMs, 'NX'), timeout]);
      if (answer === 'timeout') throw new Error(`no answer within ${this.timeoutMs} ms`);
      this.warned = false;
      return answer === 'OK';
    } catch (error) {
      if (!this.warned) {
        this.warned = true;
        this.log.warn({ err: error instanceof Error ? error.message : String(error) }, 'signature nonces: Redis unavailable, using the database');
      }
      return this.fallback.claim(id, expiresAt);
    } finally {
      clearTimeout(timer);
    }
  }

  connected(withinMs: number): Promise<void> {
    return redisReady(this.client, withinMs);
  }

  async close(): Promise<void> {
    this.client.disconnect();
    await this.fallback.close();
  }
}

export interface SignatureNoncesOptions {
  redisUrl: string | undefined;
  databaseUrl: string | undefined;
  db: Db;
  clock: Clock;
  log: NonceLog;
}

/** Redis when configured (the database as its fallback), else PostgreSQL, else memory. */
export function createSignatureNonces({ redisUrl, databaseUrl, db, clock, log }: SignatureNoncesOptions): SignatureNonces {
  if (redisUrl !== undefined) return new RedisSignatureNonces(redisUrl, new DatabaseSignatureNonces(db, clock, log), clock, log);
  if (databaseUrl !== undefined) return new DatabaseSignatureNonces(db, clock, log);
  return new MemorySignatureNonces(clock);
}
