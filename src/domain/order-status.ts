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
 * A moment as the code holds it: a Date, or the ISO text the order view's wire query reads
 * (ISO text of equal length orders as the times do, so `<=` answers alike on both).
 */
export type Moment = Date | string;

/**
 * The one rule of how a stored status reads: an order still waiting for its deposit once its
 * `expires_at` has passed reads expired, before the expiry sweep has stored it (docs/contract.md
 * §4). Its SQL side is db/repositories/order-status-sql.ts.
 */
export function statusAt<T extends Moment>(status: OrderStatus, expiresAt: T, now: T): OrderStatus {
  return status === 'waiting_deposit' && expiresAt <= now ? 'expired' : status;
}

/** The statuses docs/contract.md §4 calls final (an expired order still moves on a late deposit, rarely). */
export const FINAL_STATUSES: ReadonlySet<OrderStatus> = new Set(['completed', 'expired', 'refunded', 'failed']);
