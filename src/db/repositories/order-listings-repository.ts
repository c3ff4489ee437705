import type { OrderStatus } from '../../domain/order-status.js';
import type { Db } from '../schema/index.js';
import type { OrderRow } from '../schema/orders.js';

/** Orders as the operator reads them: searches and counts over many orders. */

export interface OrderSearch {
  status?: OrderStatus | undefined;
  partnerId?: string | undefined;
  /** created_at at or after this. */
  createdFrom?: Date | undefined;
  /** created_at before this. */
  createdTo?: Date | undefined;
  /** Sandbox orders only (true), live only (false); both when undefined. */
  sandbox?: boolean | undefined;
  limit: number;
  offset: number;
}

/** Newest first (ties by id, so pages are stable). */
export async function searchOrders(db: Db, search: OrderSearch): Promise<OrderRow[]> {
  let query = db.selectFrom('orders').selectAll();
  if (search.status !== undefined) query = query.where('status', '=', search.status);
  if (search.partnerId !== undefined) query = query.where('partner_id', '=', search.partnerId);
  if (search.createdFrom !== undefined) query = query.where('created_at', '>=', search.createdFrom);
  if (search.createdTo !== undefined) query = query.where('created_at', '<', search.createdTo);
  if (search.sandbox !== undefined) query = query.where('sandbox', '=', search.sandbox);
  return query.orderBy('created_at', 'desc').orderBy('id').limit(search.limit).offset(search.offset).execute();
}

/**
 * How many live orders are stored in each status (a status with none is absent). Sandbox orders
 * (DESIGN §7.6) are left out: they are partners' tests, and an operator's figures are real ones.
 */
export async function countOrdersByStatus(db: Db): Promise<Map<OrderStatus, number>> {
  const rows = await db
    .selectFrom('orders')
    .select(['status', (eb) => eb.fn.countAll<number>().as('count')])
    .where('sandbox', '=', false)
    .groupBy('status')
    .execute();
  return new Map(rows.map((row) => [row.status, Number(row.count)]));
}

/**
 * For each of `statuses`, when the live order that has gone longest without a change in it was
 * last changed (a status with no live order is absent): what an operator calls a stuck order.
 */
export async function oldestUnchangedByStatus(db: Db, statuses: readonly OrderStatus[]): Promise<Map<OrderStatus, Date>> {
  if (statuses.length === 0) return new Map();
  const rows = await db
    .selectFrom('orders')
    .select(['status', (eb) => eb.fn.min('updated_at').as('since')])
    .where('sandbox', '=', false)
    .where('status', 'in', [...statuses])
    .groupBy('status')
    .execute();
  return new Map(rows.map((row) => [row.status, new Date(row.since)]));
}
