import type { Db } from '../schema/index.js';
import type { NewOrder, OrderRow, OrderStatus } from '../schema/orders.js';

export async function insertOrder(db: Db, order: NewOrder): Promise<OrderRow> {
  return db.insertInto('orders').values(order).returningAll().executeTakeFirstOrThrow();
}

/** The partner filter is part of the query: another partner's order is simply not found. */
export async function findPartnerOrder(
  db: Db,
  partnerId: string,
  by: { id: string } | { shortId: string },
): Promise<OrderRow | undefined> {
  let query = db.selectFrom('orders').selectAll().where('partner_id', '=', partnerId);
  query = 'id' in by ? query.where('id', '=', by.id) : query.where('short_id', '=', by.shortId.toUpperCase());
  return query.executeTakeFirst();
}

export async function findOrder(db: Db, id: string): Promise<OrderRow | undefined> {
  return db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function orderUsingQuote(db: Db, quoteId: string): Promise<string | undefined> {
  const row = await db.selectFrom('orders').select('id').where('quote_id', '=', quoteId).executeTakeFirst();
  return row?.id;
}

export interface NewOrderEvent {
  order_id: string;
  from_status: OrderStatus | null;
  to_status: OrderStatus;
  reason: string | null;
  data: Record<string, unknown> | null;
  order_version: number;
  created_at: Date;
}

export async function insertOrderEvent(db: Db, event: NewOrderEvent): Promise<void> {
  await db
    .insertInto('order_events')
    .values({ ...event, data: event.data === null ? null : JSON.stringify(event.data) })
    .execute();
}
