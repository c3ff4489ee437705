import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Clock } from '../clock.js';
import {
  deleteWorkerHeartbeatsBefore,
  recordWorkerStopped,
  recordWorkerTick,
  type WorkerIdentity,
} from '../db/repositories/worker-heartbeats-repository.js';
import type { Db } from '../db/schema/index.js';
import type { WorkerKind, WorkerMode } from '../db/schema/worker-heartbeats.js';

/** A loop's row is written at most this often, ms: the last tick shown is at most this old. */
export const HEARTBEAT_EVERY_MS = 5000;
/**
 * A loop whose last tick is older than this is reported stale (GET /admin/v1/health, /readyz's
 * `workers` check): twelve missed beats, so a slow pass (a node that answers slowly, a large
 * batch) is not mistaken for a dead worker.
 */
export const WORKER_STALE_AFTER_MS = 60_000;
/** The longest wait between two attempts of a failing loop, ms. */
const MAX_RETRY_DELAY_MS = 10_000;

/** A loop's pause before its next attempt: `baseMs` while it succeeds, doubled per failure in a row up to 10 s. */
export function retryDelayMs(baseMs: number, failures: number): number {
  return failures === 0 ? baseMs : Math.min(baseMs * 2 ** Math.min(failures, 20), Math.max(MAX_RETRY_DELAY_MS, baseMs));
}

/** Rows of loops gone longer than this are deleted when a loop starts (restarts leave rows behind). */
const FORGET_AFTER_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * The heartbeat row of one worker loop (worker_heartbeats). `beat()` is called after
 * each pass that succeeded; it writes at most every HEARTBEAT_EVERY_MS. Failures to write are the
 * caller's to log: a beat that cannot be written is a database outage, which the loop reports.
 */
export class WorkerHeartbeat {
  private readonly identity: WorkerIdentity;
  private lastWritten = Number.NEGATIVE_INFINITY;
  private written = false;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    kind: WorkerKind,
    mode: WorkerMode,
  ) {
    this.identity = { id: randomUUID(), kind, mode, host: hostname().slice(0, 255), pid: process.pid, startedAt: clock.now() };
  }

  get id(): string {
    return this.identity.id;
  }

  async beat(): Promise<void> {
    const now = this.clock.now();
    if (now.getTime() - this.lastWritten < HEARTBEAT_EVERY_MS) return;
    if (!this.written) await deleteWorkerHeartbeatsBefore(this.db, new Date(now.getTime() - FORGET_AFTER_MS));
    await recordWorkerTick(this.db, this.identity, now);
    this.lastWritten = now.getTime();
    this.written = true;
  }

  /** The loop stopped: stamped so the operator sees a stop, not a death. Never throws. */
  async stopped(): Promise<void> {
    if (!this.written) return;
    await recordWorkerStopped(this.db, this.identity.id, this.clock.now()).catch(() => undefined);
  }
}
