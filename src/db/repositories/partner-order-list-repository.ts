import { sql, type ExpressionBuilder } from 'kysely';
import { searchSpellings } from '../../domain/order-search.js';
import type { OrderStatus } from '../../domain/order-status.js';
import type { Database, Db } from '../schema/index.js';
import { PARTNER_ORDER_COLUMNS, PARTNER_ORDER_LIST_SELECT, type PartnerOrderListRow, type PartnerOrderRow } from '../../views/partner-order-view.js';
import { statusReadsAs } from './order-status-sql.js';

/** A position in a partner's list: the last order of a page, in its (created_at, id) order. */
export interface OrderListPosition {
  createdAt: Date;
  id: string;
}

/** GET /partner/orders' filters, already validated (docs/contract.md §7.2). All optional, combined with AND. */
export interface PartnerOrderFilter {
  /** Statuses as the partner reads them (a waiting order past expires_at reads expired). */
  statuses?: readonly OrderStatus[] | undefined;
  /** Upper-case tickers. */
  coinFrom?: string | undefined;
  coinTo?: string | undefined;
  /** Exclusive bounds on created_at. */
  createdAfter?: Date | undefined;
  createdBefore?: Date | undefined;
  /**
   * Exact match on any of: id (when `searchId` is set, a lower-case UUID), short id (when
   * `searchShortId` is set, upper case), deposit address, deposit txid, payout txid, recipient
   * address, external_id (docs/contract.md §10.8, as sent); a hex address or hash matches in any case (searchSpellings).
   */
  search?: string | undefined;
  searchId?: string | undefined;
  searchShortId?: string | undefined;
  /** Sandbox orders only (true) or live orders only (false, GET /partner/orders' default). */
  sandbox: boolean;
}

type Where = ExpressionBuilder<Database, 'orders'>;

/** external_id's longest (migration 0047): a longer search cannot be one. */
const EXTERNAL_ID_MAX = 64;

/**
 * An exact match on each search column, for each spelling of the value (domain/order-search.ts:
 * hex addresses and hashes in any case): `column IN (spellings)` is still an equality on the
 * column's index, so each column keeps its index scan (the plans: bench/order-list-plans.ts).
 */
function searchCondition(eb: Where, filter: PartnerOrderFilter, search: string) {
  const spellings = searchSpellings(search);
  const matches = (column: 'deposit_address' | 'deposit_txid' | 'payout_txid' | 'recipient_address') =>
    spellings.length === 1 ? eb(column, '=', search) : eb(column, 'in', spellings);
  const branches = [matches('deposit_address'), matches('deposit_txid'), matches('payout_txid'), matches('recipient_address')];
  if (filter.searchId !== undefined) branches.push(eb('id', '=', filter.searchId));
  if (filter.searchShortId !== undefined) branches.push(eb('short_id', '=', filter.searchShortId));
  // The partner's own reference (docs/contract.md §10.8), exactly as sent: its unique index (migration 0047).
  if (search.length <= EXTERNAL_ID_MAX) branches.push(eb('external_id', '=', search));
  return eb.or(branches);
}

/**
 * One page of a partner's orders, newest first (created_at, then id, both descending), strictly
 * after `after` in that order: keyset pagination, so orders created while a client pages never
 * shift the pages of those that existed. Every filter has an index ending in (created_at, id)
 * (migration 0009). `now` decides which waiting orders read expired.
 */
export async function listPartnerOrders(
  db: Db,
  partnerId: string,
  filter: PartnerOrderFilter,
  page: OrderListPage,
): Promise<PartnerOrderRow[]> {
  return partnerOrderListQuery(db, partnerId, filter, page).execute();
}

/**
 * The same page as GET /partner/orders writes it: each Order's JSON made by PostgreSQL in runs of
 * bytes, with the few columns of the fields the service writes itself
 * (views/partner-order-view.ts PARTNER_ORDER_LIST_SELECT), so a page makes no object per field.
 */
export async function listPartnerOrdersWire(
  db: Db,
  partnerId: string,
  filter: PartnerOrderFilter,
  page: OrderListPage,
): Promise<PartnerOrderListRow[]> {
  const rows = await partnerOrderListWireQuery(db, partnerId, filter, page).execute();
  return rows as unknown as PartnerOrderListRow[];
}

export interface OrderListPage {
  limit: number;
  after?: OrderListPosition | undefined;
  now: Date;
}

/** listPartnerOrders' query (the cabinet's rows), unexecuted. */
export function partnerOrderListQuery(db: Db, partnerId: string, filter: PartnerOrderFilter, page: OrderListPage) {
  return filteredOrders(db, partnerId, filter, page).select(PARTNER_ORDER_COLUMNS);
}

/** The list's select as Kysely selections: PostgreSQL writes the Order's bytes (views/partner-order-view.ts PARTNER_ORDER_LIST_SELECT). */
const PARTNER_ORDER_LIST_SELECTIONS = PARTNER_ORDER_LIST_SELECT.map(([alias, expression]) => sql.raw<unknown>(expression).as(alias));

/**
 * listPartnerOrdersWire's query (GET /partner/orders), unexecuted: bench/order-list-plans.ts
 * shows its plans and the bench's pgbench ceiling runs it.
 */
export function partnerOrderListWireQuery(db: Db, partnerId: string, filter: PartnerOrderFilter, page: OrderListPage) {
  return filteredOrders(db, partnerId, filter, page).select(PARTNER_ORDER_LIST_SELECTIONS);
}

/** A filtered list's totals per source coin (the cabinet's orders page). */
export interface OrderListTotal {
  coin: string;
  orders: number;
  /** Exact NUMERIC text. */
  expected: string;
  received: string;
}

/** The totals of every order the filter matches (all pages), per source coin: one aggregate on the filter's indexes. */
export async function partnerOrderTotals(db: Db, partnerId: string, filter: PartnerOrderFilter, now: Date): Promise<OrderListTotal[]> {
  const rows = await matchingOrders(db, partnerId, filter, now)
    .select((eb) => [
      'coin_from',
      eb.fn.countAll<string>().as('orders'),
      eb.fn.coalesce(eb.fn.sum<string>('amount_from_expected'), sql<string>`0`).as('expected'),
      eb.fn.coalesce(eb.fn.sum<string>('amount_from_received'), sql<string>`0`).as('received'),
    ])
    .groupBy('coin_from')
    .orderBy('coin_from')
    .execute();
  return rows.map((row) => ({ coin: row.coin_from, orders: Number(row.orders), expected: String(row.expected), received: String(row.received) }));
}

/** The orders the filter matches, before paging, ordering or a select list. */
function matchingOrders(db: Db, partnerId: string, filter: PartnerOrderFilter, now: Date) {
  let query = db.selectFrom('orders').where('partner_id', '=', partnerId).where('sandbox', '=', filter.sandbox);
  const { statuses, search } = filter;
  if (statuses !== undefined) query = query.where((eb) => statusReadsAs(eb, statuses, now));
  if (filter.coinFrom !== undefined) query = query.where('coin_from', '=', filter.coinFrom);
  if (filter.coinTo !== undefined) query = query.where('coin_to', '=', filter.coinTo);
  if (filter.createdAfter !== undefined) query = query.where('created_at', '>', filter.createdAfter);
  if (filter.createdBefore !== undefined) query = query.where('created_at', '<', filter.createdBefore);
  if (search !== undefined) query = query.where((eb) => searchCondition(eb, filter, search));
  return query;
}

/** The page's rows, filtered and ordered, before a select list is chosen. */
function filteredOrders(db: Db, partnerId: string, filter: PartnerOrderFilter, page: OrderListPage) {
  let query = matchingOrders(db, partnerId, filter, page.now);
  const after = page.after;
  if (after !== undefined) {
    query = query.where((eb) => eb(eb.refTuple('orders.created_at', 'orders.id'), '<', eb.tuple(after.createdAt, after.id)));
  }
  // Qualified: an unqualified ORDER BY name means the output column first, and the wire select
  // names its to_char text `created_at`; ordering by that text sorted every order of the
  // partner (no index serves it), 3 ms became 75 ms with 10,000 orders (bench orders-list-pg).
  return query.orderBy('orders.created_at', 'desc').orderBy('orders.id', 'desc').limit(page.limit);
}
