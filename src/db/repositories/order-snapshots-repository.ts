import { sql } from 'kysely';
import type { Db } from '../schema/index.js';
import type { OrderSnapshotRow } from '../schema/order-snapshots.js';

/** A snapshot to store (OrderSnapshotTable). */
export type NewOrderSnapshot = OrderSnapshotRow;

/**
 * Stores the snapshots of moves made in `tx` (docs/contract.md §10.11), one statement whatever their
 * number. With `notify`, the same statement NOTIFYs each payload on the channel: delivered at
 * commit, in commit order, and not at all on rollback (services/order-move-feed.ts).
 */
export async function insertOrderSnapshots(
  tx: Db,
  snapshots: readonly NewOrderSnapshot[],
  notify?: { channel: string; payloads: readonly string[] },
): Promise<void> {
  if (snapshots.length === 0) return;
  const rows = JSON.stringify(snapshots.map((row) => ({ ...row, created_at: row.created_at.toISOString() })));
  const insert = sql`
    insert into order_snapshots (order_id, version, status, order_json, created_at)
    select order_id, version, status, order_json, created_at
    from jsonb_to_recordset(${rows}::jsonb) as x(order_id uuid, version integer, status text, order_json text, created_at timestamptz)
  `;
  if (notify === undefined || notify.payloads.length === 0) {
    await insert.execute(tx);
    return;
  }
  // A data-modifying CTE runs whether or not the rest reads it: one round trip for both.
  await sql`
    with stored as (${insert} returning 1)
    select pg_notify(${notify.channel}, payload) from jsonb_array_elements_text(${JSON.stringify(notify.payloads)}::jsonb) as payload
  `.execute(tx);
}

/** What a stream missed of one order: the snapshots after `after`. */
export interface SnapshotWant {
  orderId: string;
  after: number;
}

/** The stored snapshots each want asks for, per order in version order; one query for all. */
export async function snapshotsAfter(db: Db, wants: readonly SnapshotWant[]): Promise<OrderSnapshotRow[]> {
  if (wants.length === 0) return [];
  const input = JSON.stringify(wants.map((want) => ({ order_id: want.orderId, after: want.after })));
  const result = await sql<OrderSnapshotRow>`
    select s.order_id, s.version, s.status, s.order_json, s.created_at
    from jsonb_to_recordset(${input}::jsonb) as w(order_id uuid, after integer)
    join order_snapshots s on s.order_id = w.order_id and s.version > w.after
    order by s.order_id, s.version
  `.execute(db);
  return result.rows;
}

/** Deletes the snapshots of moves made before `before`; how many went. */
export async function pruneOrderSnapshots(db: Db, before: Date): Promise<number> {
  const result = await db.deleteFrom('order_snapshots').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
