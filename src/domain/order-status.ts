/**
 * Every status an order can be in (docs/contract.md §4), listed once: the database column's type
 * (db/schema/orders.ts), the lifecycle table, the response schemas and the CLI's --status
 * check all take it from here.
 */
export const ORDER_STATUSES = [
  'waiting_deposit',
  'confirming',
  'exchanging',
  'sending',
  'completed',
  'expired',
  'refunding',
  'refunded',
  'failed',
] as const;

export type OrderStatus = (typeof ORDER_STATUSES)[number];

const STATUS_SET: ReadonlySet<string> = new Set(ORDER_STATUSES);

export function isOrderStatus(value: string): value is OrderStatus {
  return STATUS_SET.has(value);
}

/**
 * The one rule of how a stored status reads: an order still waiting for its deposit once its
 * `expires_at` has passed reads expired, before the expiry sweep has stored it (docs/contract.md
 * §4). The caller says whether the expiry has passed, over whatever form of time it holds (a
 * Date, or the wire row's ISO text); the SQL twin is statusAsReadSql in
 * db/repositories/partner-order-list-repository.ts.
 */
export function statusAsRead(status: OrderStatus, pastExpiry: boolean): OrderStatus {
  return status === 'waiting_deposit' && pastExpiry ? 'expired' : status;
}

/** The status an order reads as at `now` (statusAsRead). */
export function statusAt(status: OrderStatus, expiresAt: Date, now: Date): OrderStatus {
  return statusAsRead(status, expiresAt <= now);
}

/** The statuses docs/contract.md §4 calls final (an expired order still moves on a late deposit, rarely). */
export const FINAL_STATUSES: ReadonlySet<OrderStatus> = new Set(['completed', 'expired', 'refunded', 'failed']);
