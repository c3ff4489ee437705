import type { Db } from '../schema/index.js';
import type { OrderEventRow } from '../schema/orders.js';
import type { NewOrderEvent } from './orders-repository.js';

/** The append-only audit trail: one order_events row per move (insertOrderEvent in orders-repository.ts writes one). */

/** Appends one row per moved order, in one statement. */
export async function insertOrderEvents(db: Db, events: readonly NewOrderEvent[]): Promise<void> {
  if (events.length === 0) return;
  await db
    .insertInto('order_events')
    .values(events.map((event) => ({ ...event, data: event.data === null ? null : JSON.stringify(event.data) })))
    .execute();
}

/** An order's trail as the operator reads it, oldest first, with who made each move (docs/contract.md §10.2). */
export type OrderEventListing = Pick<
  OrderEventRow,
  'from_status' | 'to_status' | 'reason' | 'data' | 'actor' | 'actor_key_id' | 'actor_user_id' | 'created_at'
>;

export async function listOrderEvents(db: Db, orderId: string): Promise<OrderEventListing[]> {
  return db
    .selectFrom('order_events')
    .select(['from_status', 'to_status', 'reason', 'data', 'actor', 'actor_key_id', 'actor_user_id', 'created_at'])
    .where('order_id', '=', orderId)
    .orderBy('order_version')
    .orderBy('created_at')
    .execute();
}
