import { listOrderEvents, type OrderEventListing } from '../db/repositories/order-events-repository.js';
import { searchOrders, type OrderSearch, type OrderWithPartner } from '../db/repositories/order-listings-repository.js';
import { findOrder, findOrderIdByShortId, findOrderIdsByShortIdSuffix } from '../db/repositories/orders-repository.js';
import { findPartner } from '../db/repositories/partners-repository.js';
import { listOrderPayouts, type OrderPayoutListing } from '../db/repositories/payouts-repository.js';
import type { Db } from '../db/schema/index.js';
import type { OrderRow } from '../db/schema/orders.js';
import { searchSpellings } from '../domain/order-search.js';
import { SHORT_ID_PATTERN, UUID_PATTERN } from '../domain/short-id.js';

/** A short id's six characters alone, as people read them out. */
const SUFFIX_PATTERN = /^[A-Za-z0-9]{6}$/;

/** An order as the operator reads it: with its partner's name, its trail and its payouts. */
export interface OrderDetail {
  order: OrderRow;
  partnerName: string | null;
  events: OrderEventListing[];
  payouts: OrderPayoutListing[];
}

export type OrderQuery = Omit<OrderSearch, 'identifier'> & { q?: string | undefined };

/**
 * The operator's reads of orders, for GET /admin/v1/orders and /admin/v1/orders/{id}, the CLI
 * and the console alike: one search (by whatever an operator has at hand: the order's id or
 * short id in any case with or without the prefix, an address or txid in the spellings the
 * service stores, an external id, the partner's id or a part of its name, the email of one of
 * its cabinet people), one order with its trail and payouts, and a short id resolved. (A payout
 * is approved by PayoutOperations, for the operator API and the console alike.)
 */
export class OrderLookup {
  constructor(
    private readonly db: Db,
    private readonly shortIdPrefix: string,
  ) {}

  /** Orders newest first, filtered; `q` read every way a ticket writes an identifier. */
  async search(query: OrderQuery): Promise<OrderWithPartner[]> {
    const { q, ...filters } = query;
    const text = q?.trim() ?? '';
    return searchOrders(this.db, { ...filters, identifier: q === undefined ? undefined : this.identifierOf(text) });
  }

  private identifierOf(text: string): NonNullable<OrderSearch['identifier']> {
    return {
      spellings: searchSpellings(text),
      shortIds: SHORT_ID_PATTERN.test(text) ? [text.toUpperCase()] : [],
      ...(SUFFIX_PATTERN.test(text) ? { shortIdSuffix: text.toUpperCase() } : {}),
      ...(UUID_PATTERN.test(text) ? { uuid: text.toLowerCase() } : {}),
      nameLike: text,
      email: text.toLowerCase(),
    };
  }

  /** One order with its partner's name, trail and payouts; undefined when there is none. */
  async detail(id: string): Promise<OrderDetail | undefined> {
    if (!UUID_PATTERN.test(id)) return undefined;
    const order = await findOrder(this.db, id.toLowerCase());
    if (order === undefined) return undefined;
    const [events, payouts, partner] = await Promise.all([listOrderEvents(this.db, order.id), listOrderPayouts(this.db, order.id), findPartner(this.db, order.partner_id)]);
    return { order, partnerName: partner?.name ?? null, events, payouts };
  }

  /**
   * The order id a short id names (any case; without its prefix the current SHORT_ID_PREFIX is
   * tried first, then any earlier prefix, and two such orders are ambiguous: not guessed
   * between). Undefined for a reference of no order; null for text that is no short id at all.
   */
  async resolveShortId(ref: string): Promise<string | undefined | null> {
    if (SHORT_ID_PATTERN.test(ref)) return findOrderIdByShortId(this.db, ref.toUpperCase());
    if (!SUFFIX_PATTERN.test(ref)) return null;
    const suffix = ref.toUpperCase();
    const found = await findOrderIdByShortId(this.db, `${this.shortIdPrefix}-${suffix}`);
    if (found !== undefined) return found;
    const any = await findOrderIdsByShortIdSuffix(this.db, suffix, 2);
    return any.length === 1 ? any[0] : undefined;
  }
}
