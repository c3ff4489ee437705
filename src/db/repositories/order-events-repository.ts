import { currentTraceParent } from '../../tracing/tracing.js';
import type { Db } from '../schema/index.js';
import type { OrderStatus } from '../../domain/order-status.js';
import type { EventActor, OrderEventRow } from '../schema/orders.js';

/**
 * The append-only audit trail: one order_events row per move, written here and only here (and,
 * for an order's creation, by create_partner_order in the same statement as the order).
 */

/** One move's row of the trail. */
export interface NewOrderEvent {
  order_id: string;
  from_status: OrderStatus | null;
  to_status: OrderStatus;
  reason: string | null;
  data: Record<string, unknown> | null;
  order_version: number;
  /** Who made the move; default system. */
  actor?: EventActor;
  /** A partner's move: the key that made it (docs/contract.md §10.2); see actorColumns. */
  actor_key_id?: string | null;
  /** A partner's move made in the cabinet: the person. */
  actor_user_id?: string | null;
  created_at: Date;
}

/** Appends one row per moved order, in one statement. */
export async function insertOrderEvents(db: Db, events: readonly NewOrderEvent[]): Promise<void> {
  if (events.length === 0) return;
  const traceParent = currentTraceParent();
  await db
    .insertInto('order_events')
    .values(events.map((event) => ({ ...event, data: event.data === null ? null : JSON.stringify(event.data), trace_parent: traceParent })))
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

/** The trace context of the order's latest move (tracing on): its next worker step continues that trace. */
export async function latestTraceParent(db: Db, orderId: string): Promise<string | null> {
  const row = await db
    .selectFrom('order_events')
    .select('trace_parent')
    .where('order_id', '=', orderId)
    .orderBy('created_at', 'desc')
    .orderBy('order_version', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.trace_parent ?? null;
}
