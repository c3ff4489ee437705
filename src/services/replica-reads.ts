import { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import { Counter, Gauge } from 'prom-client';
import { currentWalPosition, replayedWalPosition } from '../db/repositories/replication-repository.js';
import type { Db } from '../db/schema/index.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { redisReady } from '../infrastructure/redis-ready.js';
import type { Metrics } from '../metrics.js';

/**
 * Reads that tolerate lag (docs/adr/0055-read-replica.md): order lists, stats, the catalog's
 * refresh. With DATABASE_READ_URL they go to the streaming replica, except when
 * - the replica is unreachable (or is no standby at all): the primary answers, counted in
 *   `db_replica_fallbacks_total{reason="unavailable"}`, and `db_replica_up` is 0 until a probe
 *   reaches it again;
 * - the partner asking has written something (an order, an action, a cabinet change) that the
 *   replica has not replayed yet: its last write's WAL position is kept (write marks), and the
 *   read goes to the primary (`reason="behind"`) until the replica's replay passes it. A partner
 *   never reads an older version of what it changed itself; other partners' changes may show a
 *   moment late, as lag allows.
 * Everything that must read its own writes (an order by id, actions, the worker's and the
 * webhook worker's claims) never comes here: it takes the primary's `db`.
 */
export interface LagTolerantReads {
  /** Runs `query` on the replica when it may, else on the primary; `partnerId` undefined: nobody's own write is at stake. */
  read<T>(partnerId: string | undefined, query: (db: Db) => Promise<T>): Promise<T>;
  /** After a partner's write committed: its next reads wait for the replica to replay it (or go to the primary). */
  wrote(partnerId: string): Promise<void>;
  /** Resolves once the shared write marks can be read (or `withinMs` passed): until then reads go to the primary. */
  connected(withinMs: number): Promise<void>;
  close(): Promise<void>;
}

/** No replica configured: every read on the primary, nothing to remember. */
export class PrimaryReads implements LagTolerantReads {
  constructor(private readonly db: Db) {}

  read<T>(_partnerId: string | undefined, query: (db: Db) => Promise<T>): Promise<T> {
    return query(this.db);
  }

  wrote(): Promise<void> {
    return Promise.resolve();
  }

  connected(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * Each partner's last write position. Kept in Redis when REDIS_URL is set, so a partner whose
 * next request lands on another API process is covered too; else in this process's memory (the
 * embedded default has no replica, and one process with a replica needs nothing shared).
 * One entry per partner: the set stays as small as the partner list.
 */
interface WriteMarks {
  /** Keeps the larger of the stored and the given position. */
  raise(partnerId: string, position: bigint): Promise<void>;
  get(partnerId: string): Promise<bigint | undefined>;
}

class MemoryWriteMarks implements WriteMarks {
  private readonly marks = new Map<string, bigint>();

  raise(partnerId: string, position: bigint): Promise<void> {
    const current = this.marks.get(partnerId);
    if (current === undefined || current < position) this.marks.set(partnerId, position);
    return Promise.resolve();
  }

  get(partnerId: string): Promise<bigint | undefined> {
    return Promise.resolve(this.marks.get(partnerId));
  }
}

/** How long a mark stays in Redis: far past any lag a replica is read through (it then reads as "never wrote"). */
const REDIS_MARK_TTL_MS = 86_400_000;
/** Positions as fixed-width hex, so Redis compares them as strings in the order of the numbers. */
const RAISE_SCRIPT = `local current = redis.call('GET', KEYS[1])
if not current or current < ARGV[1] then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return 1`;

class RedisWriteMarks implements WriteMarks {
  private readonly client: Redis;

  constructor(url: string, log: FastifyBaseLogger) {
    this.client = new Redis(url, {
      // A mark that cannot be read or written fails at once: the read goes to the primary.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: 1000,
      connectTimeout: 1000,
      retryStrategy: (attempt: number) => Math.min(attempt * 100, 1000),
    });
    this.client.on('error', (error: Error) => log.debug({ err: error }, 'read replica write marks: Redis unavailable'));
  }

  async raise(partnerId: string, position: bigint): Promise<void> {
    await this.client.eval(RAISE_SCRIPT, 1, markKey(partnerId), position.toString(16).padStart(16, '0'), String(REDIS_MARK_TTL_MS));
  }

  async get(partnerId: string): Promise<bigint | undefined> {
    const value = await this.client.get(markKey(partnerId));
    return value === null ? undefined : BigInt(`0x${value}`);
  }

  connected(withinMs: number): Promise<void> {
    return redisReady(this.client, withinMs);
  }

  async close(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}

function markKey(partnerId: string): string {
  return `epa:replica-mark:${partnerId}`;
}

export interface ReplicaReadsOptions {
  primary: Db;
  replica: Db;
  metrics: Metrics;
  logger: FastifyBaseLogger;
  /** REDIS_URL: the write marks shared by every process; unset: kept in this process. */
  redisUrl: string | undefined;
  /** How often a replica marked down is tried again, ms. */
  probeMs?: number;
}

type FallbackReason = 'unavailable' | 'behind' | 'marks_unavailable';

export class ReplicaReads implements LagTolerantReads {
  private readonly primary: Db;
  private readonly replica: Db;
  /** This process's own marks, always; with REDIS_URL the shared ones too (a failed Redis write still leaves this one). */
  private readonly localMarks = new MemoryWriteMarks();
  private readonly sharedMarks: RedisWriteMarks | undefined;
  private readonly logger: FastifyBaseLogger;
  private readonly up: Gauge;
  private readonly served: Counter<'target'>;
  private readonly fallbacks: Counter<'reason'>;
  private readonly probeMs: number;
  /** The furthest replay position seen: replay only moves forward, so a mark at or below it is replayed. */
  private replayed = -1n;
  /** While the replica is down: when it is tried again (ms since epoch); 0 while it is up. */
  private retryAt = 0;

  constructor(options: ReplicaReadsOptions) {
    this.primary = options.primary;
    this.replica = options.replica;
    this.logger = options.logger;
    this.probeMs = options.probeMs ?? 1000;
    this.sharedMarks = options.redisUrl === undefined ? undefined : new RedisWriteMarks(options.redisUrl, options.logger);
    const registers = [options.metrics.registry];
    this.up = new Gauge({
      name: 'db_replica_up',
      help: '1 while DATABASE_READ_URL answers as a standby, 0 while its reads go to the primary.',
      // Several API processes: 0 when any of them reads from the primary for want of the replica.
      aggregator: 'min',
      registers,
    });
    this.up.set(1);
    this.served = new Counter({
      name: 'db_replica_reads_total',
      help: 'Reads that tolerate lag (order lists, stats, catalog refresh), by the server that answered them: replica or primary.',
      labelNames: ['target'],
      registers,
    });
    this.fallbacks = new Counter({
      name: 'db_replica_fallbacks_total',
      help: 'Reads that tolerate lag sent to the primary instead of the replica: unavailable (down or not a standby), behind (the partner\'s own write not replayed yet), marks_unavailable (the write marks could not be read).',
      labelNames: ['reason'],
      registers,
    });
  }

  async read<T>(partnerId: string | undefined, query: (db: Db) => Promise<T>): Promise<T> {
    const target = await this.choose(partnerId);
    if (target === 'replica') {
      try {
        const result = await query(this.replica);
        this.served.inc({ target: 'replica' });
        return result;
      } catch (error) {
        // The replica went away under the read: the primary answers it, the caller never knows.
        if (!isDatabaseUnavailable(error)) throw error;
        this.markDown(error);
        return this.onPrimary('unavailable', query);
      }
    }
    return this.onPrimary(target, query);
  }

  async wrote(partnerId: string): Promise<void> {
    // After the commit, so the position covers it. A Redis that cannot take the mark is logged;
    // this process still holds it, so at least the partner's requests here stay on the primary
    // until the replica has replayed the write.
    const position = await currentWalPosition(this.primary);
    await this.localMarks.raise(partnerId, position);
    try {
      await this.sharedMarks?.raise(partnerId, position);
    } catch (error) {
      this.logger.warn({ err: error }, 'read replica: recording a partner\'s write position in Redis failed');
    }
  }

  async connected(withinMs: number): Promise<void> {
    await this.sharedMarks?.connected(withinMs);
  }

  async close(): Promise<void> {
    await this.sharedMarks?.close();
  }

  /** The larger of this process's mark and the shared one. */
  private async markOf(partnerId: string): Promise<bigint | undefined> {
    const local = await this.localMarks.get(partnerId);
    const shared = await this.sharedMarks?.get(partnerId);
    if (local === undefined) return shared;
    return shared === undefined || shared < local ? local : shared;
  }

  /** Replica, or the reason the primary answers instead. */
  private async choose(partnerId: string | undefined): Promise<'replica' | FallbackReason> {
    if (this.retryAt > Date.now()) return 'unavailable';
    let mark: bigint | undefined;
    if (partnerId !== undefined) {
      try {
        mark = await this.markOf(partnerId);
      } catch {
        return 'marks_unavailable';
      }
    }
    // A replica that was down is asked where it stands before it is trusted again; one with a
    // mark to check is asked only when the last position seen does not already cover it.
    if (this.retryAt === 0 && (mark === undefined || mark <= this.replayed)) return 'replica';
    let replayed: bigint | undefined;
    try {
      replayed = await replayedWalPosition(this.replica);
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      this.markDown(error);
      return 'unavailable';
    }
    if (replayed === undefined) {
      this.markDown(new Error('DATABASE_READ_URL is not a standby (pg_last_wal_replay_lsn() is null)'));
      return 'unavailable';
    }
    this.markUp();
    if (replayed > this.replayed) this.replayed = replayed;
    return mark === undefined || mark <= this.replayed ? 'replica' : 'behind';
  }

  private async onPrimary<T>(reason: FallbackReason, query: (db: Db) => Promise<T>): Promise<T> {
    this.fallbacks.inc({ reason });
    const result = await query(this.primary);
    this.served.inc({ target: 'primary' });
    return result;
  }

  private markDown(error: unknown): void {
    if (this.retryAt === 0) this.logger.warn({ err: error }, 'read replica unavailable: its reads go to the primary');
    this.retryAt = Date.now() + this.probeMs;
    this.up.set(0);
  }

  private markUp(): void {
    if (this.retryAt !== 0) this.logger.info('read replica reachable again: reads that tolerate lag go back to it');
    this.retryAt = 0;
    this.up.set(1);
  }
}
