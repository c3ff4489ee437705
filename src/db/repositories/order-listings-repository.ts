import { sql } from 'kysely';
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
  /**
   * What a ticket quotes: the order's UUID (or its partner's), its short id (upper-cased by the
   * caller, with or without the prefix), an address (deposit, recipient, refund), a transaction id
   * (deposit, payout, refund) or the partner's external id, each matched exactly in any of
   * `spellings` (domain/order-search.ts); the partner's name (a part of it, any case) or the
   * email of one of its cabinet people (lower-cased by the caller).
   */
  identifier?:
    | { spellings: readonly string[]; shortIds: readonly string[]; shortIdSuffix?: string | undefined; uuid?: string | undefined; nameLike: string; email: string }
    | undefined;
  /** Strictly after this order in the list's order (keyset paging). */
  after?: { createdAt: Date; id: string } | undefined;
  limit: number;
  offset: number;
}

export type OrderWithPartner = OrderRow & { partner_name: string };

/** Newest first (ties by id, descending, so pages are stable), each with its partner's name. */
export async function searchOrders(db: Db, search: OrderSearch): Promise<OrderWithPartner[]> {
  let query = db.selectFrom('orders').innerJoin('partners', 'partners.id', 'orders.partner_id').selectAll('orders').select('partners.name as partner_name');
  if (search.status !== undefined) query = query.where('orders.status', '=', search.status);
  if (search.partnerId !== undefined) query = query.where('orders.partner_id', '=', search.partnerId);
  if (search.createdFrom !== undefined) query = query.where('orders.created_at', '>=', search.createdFrom);
  if (search.createdTo !== undefined) query = query.where('orders.created_at', '<', search.createdTo);
  if (search.sandbox !== undefined) query = query.where('orders.sandbox', '=', search.sandbox);
  const identifier = search.identifier;
  if (identifier !== undefined) {
    const spellings = [...identifier.spellings];
    const like = `%${identifier.nameLike.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
    query = query.where((eb) =>
      eb.or([
        ...(identifier.uuid === undefined ? [] : [eb('orders.id', '=', identifier.uuid), eb('orders.partner_id', '=', identifier.uuid)]),
        ...(identifier.shortIds.length === 0 ? [] : [eb('orders.short_id', 'in', [...identifier.shortIds])]),
        ...(identifier.shortIdSuffix === undefined ? [] : [eb(sql<string>`right(orders.short_id, 6)`, '=', identifier.shortIdSuffix)]),
        eb('orders.deposit_address', 'in', spellings),
        eb('orders.recipient_address', 'in', spellings),
        eb('orders.refund_address', 'in', spellings),
        eb('orders.deposit_txid', 'in', spellings),
        eb('orders.payout_txid', 'in', spellings),
        eb('orders.refund_txid', 'in', spellings),
        eb('orders.external_id', 'in', spellings),
        eb('partners.name', 'ilike', like),
        eb('orders.partner_id', 'in', eb.selectFrom('cabinet_users as u').select('u.partner_id').where('u.email', '=', identifier.email)),
      ]),
    );
  }
  const after = search.after;
  if (after !== undefined) {
    query = query.where((eb) => eb(eb.refTuple('orders.created_at', 'orders.id'), '<', eb.tuple(after.createdAt, after.id)));
  }
  return query.orderBy('orders.created_at', 'desc').orderBy('orders.id', 'desc').limit(search.limit).offset(search.offset).execute();
}

/**
 * How many live orders are stored in each status (a status with none is absent). Sandbox orders
 * (docs/contract.md §7.6) are left out: they are partners' tests, and an operator's figures are real ones.
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
