import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.js';
import {
  partnerOrderTotals,
  type OrderListTotal,
  listPartnerOrders,
  listPartnerOrdersWire,
  type OrderListPage,
  type OrderListPosition,
  type PartnerOrderFilter,
} from '../db/repositories/partner-order-list-repository.js';
import type { PartnerOrderListRow, PartnerOrderRow } from '../views/partner-order-view.js';
import type { Db } from '../db/schema/index.js';
import { SHORT_ID_PATTERN, UUID_PATTERN } from '../domain/short-id.js';
import { ApiError } from '../errors.js';
import type { OrderReader } from './order-service.js';
import { PrimaryReads, type LagTolerantReads } from './replica-reads.js';
import { sandboxScope } from './partner-access.js';

/** Default and largest page of GET /partner/orders (docs/contract.md §7.2). */
export const ORDER_PAGE_DEFAULT = 20;
export const ORDER_PAGE_MAX = 100;

/** Bytes of HMAC-SHA256 kept in a cursor: 128 bits, beyond guessing. */
const CURSOR_MAC_BYTES = 16;
const CURSOR_PAYLOAD = /^([0-9]{1,16})\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/**
 * GET /partner/orders' query: the repository's filter as the partner gives it (the search is
 * told apart into id / short id here), plus the page.
 */
export type OrderListQuery = Omit<PartnerOrderFilter, 'searchId' | 'searchShortId' | 'sandbox'> & {
  /**
   * Which mode's orders, as asked. A key lists its own mode's (docs/contract.md §10.2): asking for the
   * other is a 400; the cabinet asks for either (default live).
   */
  sandbox?: boolean | undefined;
  /** 1..ORDER_PAGE_MAX (the route's schema checks it). */
  limit: number;
  cursor?: string | undefined;
};

export interface OrderPage<Row = PartnerOrderRow> {
  orders: Row[];
  /** Opaque; null on the last page. */
  nextCursor: string | null;
}

/**
 * A partner's orders, page by page. The cursor is the last order's (created_at, id), signed with
 * a key derived from SECRETS_KEY and bound to the partner: a cursor that was changed, or that
 * another partner's key was given, fails its MAC and is a 400, never a way to move through
 * another partner's list. Created_at is stored with millisecond precision (the service's clock),
 * which is what the cursor keeps.
 */
export class OrderList {
  private readonly cursorKey: Buffer;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    secretsKey: Buffer,
    /**
     * Lists tolerate lag, so they read the replica when there is one, except while the partner's
     * own last write is not replayed there yet (docs/adr/0055-read-replica.md).
     */
    private readonly reads: LagTolerantReads = new PrimaryReads(db),
  ) {
    // A key of its own, so a cursor MAC can never be mistaken for any other use of SECRETS_KEY.
    this.cursorKey = createHmac('sha256', secretsKey).update('partner order list cursor v1').digest();
  }

  /** A page of order rows (the cabinet's list). */
  list(access: OrderReader, query: OrderListQuery): Promise<OrderPage> {
    return this.page(access, query, listPartnerOrders, (row) => row.created_at);
  }

  /** A page as the API writes it (GET /partner/orders: the Order's bytes mostly made by PostgreSQL, partnerOrderListJson). */
  listWire(access: OrderReader, query: OrderListQuery): Promise<OrderPage<PartnerOrderListRow>> {
    // The wire row's created_at is to_char's ISO text, to the millisecond stored.
    return this.page(access, query, listPartnerOrdersWire, (row) => new Date(row.created_at));
  }

  private async page<Row extends { id: string }>(
    access: OrderReader,
    query: OrderListQuery,
    read: (db: Db, partnerId: string, filter: PartnerOrderFilter, page: OrderListPage) => Promise<Row[]>,
    createdAt: (row: Row) => Date,
  ): Promise<OrderPage<Row>> {
    const partner = access.partner;
    const keyMode = sandboxScope(access);
    if (keyMode !== undefined && query.sandbox !== undefined && query.sandbox !== keyMode) {
      throw new ApiError(
        'bad_request',
        `a ${keyMode ? 'sandbox' : 'live'} key lists ${keyMode ? 'sandbox' : 'live'} orders only: leave sandbox out, or list with a ${keyMode ? 'live' : 'sandbox'} key`,
      );
    }
    const after = query.cursor === undefined ? undefined : this.readCursor(partner.id, query.cursor);
    const filter = this.filterOf(access, query);
    // One more than the page: whether a next page exists, without a count.
    const now = this.clock.now();
    const rows = await this.reads.read(partner.id, (db) => read(db, partner.id, filter, { limit: query.limit + 1, after, now }));
    const orders = rows.slice(0, query.limit);
    const last = orders[orders.length - 1];
    const nextCursor = rows.length > query.limit && last !== undefined ? this.writeCursor(partner.id, { createdAt: createdAt(last), id: last.id }) : null;
    return { orders, nextCursor };
  }

  /** The totals per source coin of every order the query matches, all pages (the cabinet's orders page). */
  totals(access: OrderReader, query: Omit<OrderListQuery, 'limit' | 'cursor'>): Promise<OrderListTotal[]> {
    const filter = this.filterOf(access, query);
    const now = this.clock.now();
    return this.reads.read(access.partner.id, (db) => partnerOrderTotals(db, access.partner.id, filter, now));
  }

  /** The query as the repository's filter: the key's mode, the search's id and short-id forms. */
  private filterOf(access: OrderReader, query: Omit<OrderListQuery, 'limit' | 'cursor'>): PartnerOrderFilter {
    const keyMode = sandboxScope(access);
    const search = query.search;
    return {
      statuses: query.statuses,
      coinFrom: query.coinFrom?.toUpperCase(),
      coinTo: query.coinTo?.toUpperCase(),
      createdAfter: query.createdAfter,
      createdBefore: query.createdBefore,
      search,
      sandbox: keyMode ?? query.sandbox ?? false,
      searchId: search !== undefined && UUID_PATTERN.test(search) ? search.toLowerCase() : undefined,
      searchShortId: search !== undefined && SHORT_ID_PATTERN.test(search) ? search.toUpperCase() : undefined,
    };
  }

  private mac(partnerId: string, payload: string): Buffer {
    return createHmac('sha256', this.cursorKey).update(`${partnerId}|${payload}`).digest().subarray(0, CURSOR_MAC_BYTES);
  }

  private writeCursor(partnerId: string, position: OrderListPosition): string {
    const payload = `${position.createdAt.getTime()}.${position.id}`;
    return `${Buffer.from(payload).toString('base64url')}.${this.mac(partnerId, payload).toString('base64url')}`;
  }

  private readCursor(partnerId: string, cursor: string): OrderListPosition {
    const invalid = new ApiError('bad_request', 'cursor is not one this key was given: start again without it');
    const [payloadText, macText, extra] = cursor.split('.');
    if (payloadText === undefined || macText === undefined || extra !== undefined) throw invalid;
    const payload = Buffer.from(payloadText, 'base64url').toString('latin1');
    const mac = Buffer.from(macText, 'base64url');
    const expected = this.mac(partnerId, payload);
    if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) throw invalid;
    const match = CURSOR_PAYLOAD.exec(payload);
    if (match?.[1] === undefined || match[2] === undefined) throw invalid;
    return { createdAt: new Date(Number(match[1])), id: match[2] };
  }
}
