import type { Db } from '../schema/index.js';
import type { WorkerHeartbeatRow, WorkerKind, WorkerMode } from '../schema/worker-heartbeats.js';

export interface WorkerIdentity {
  id: string;
  kind: WorkerKind;
  mode: WorkerMode;
  host: string;
  pid: number;
  startedAt: Date;
}

/** The loop finished a pass at `at`: its row is made on the first beat, moved on after. */
export async function recordWorkerTick(db: Db, worker: WorkerIdentity, at: Date): Promise<void> {
  await db
    .insertInto('worker_heartbeats')
    .values({
      id: worker.id,
      kind: worker.kind,
      mode: worker.mode,
      host: worker.host,
      pid: worker.pid,
      started_at: worker.startedAt,
      last_tick_at: at,
      stopped_at: null,
    })
    .onConflict((conflict) => conflict.column('id').doUpdateSet({ last_tick_at: at, stopped_at: null }))
    .execute();
}

/** The loop stopped gracefully at `at` (a row never written stays unwritten). */
export async function recordWorkerStopped(db: Db, id: string, at: Date): Promise<void> {
  await db.updateTable('worker_heartbeats').set({ stopped_at: at }).where('id', '=', id).execute();
}

/** Rows whose last tick is older than `before`: processes long gone. Returns how many went. */
export async function deleteWorkerHeartbeatsBefore(db: Db, before: Date): Promise<number> {
  const result = await db.deleteFrom('worker_heartbeats').where('last_tick_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Every loop that ticked since `since`, the most recent first. */
export async function listWorkerHeartbeats(db: Db, since: Date): Promise<WorkerHeartbeatRow[]> {
  return db
    .selectFrom('worker_heartbeats')
    .selectAll()
    .where('last_tick_at', '>=', since)
    .orderBy('last_tick_at', 'desc')
    .orderBy('id')
    .execute();
}
