import type { Selectable } from 'kysely';
import type { Timestamp } from './currencies.js';

export type WorkerKind = 'lifecycle' | 'webhook';
/** `separate`: `npm run worker`; `in-process`: inside an API process (WORKER=in-process). */
export type WorkerMode = 'separate' | 'in-process';

/** One worker loop of one process and when it last finished a pass. */
export interface WorkerHeartbeatTable {
  /** Made by the loop at its start: a restarted process is a new row. */
  id: string;
  kind: WorkerKind;
  mode: WorkerMode;
  host: string;
  pid: number;
  started_at: Timestamp;
  last_tick_at: Timestamp;
  /** Set when the loop stopped gracefully; null while it runs (or when it died). */
  stopped_at: Timestamp | null;
}

export type WorkerHeartbeatRow = Selectable<WorkerHeartbeatTable>;
