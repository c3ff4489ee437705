import type { ExpressionBuilder } from 'kysely';
import type { OrderStatus } from '../../domain/order-status.js';
import type { Database } from '../schema/index.js';

/**
 * The SQL side of the one rule of how a stored status reads (statusAsRead in
 * domain/order-status.ts, docs/contract.md §4): a waiting order whose expires_at has passed reads
 * expired. Every query that shows or filters statuses as a partner reads them builds on
 * waitingPastExpiry, so the rule is spelled once in SQL.
 */
type Orders = ExpressionBuilder<Database, 'orders'>;

/** A stored waiting order past its expiry at `now`: the orders the rule turns to expired. */
function waitingPastExpiry(eb: Orders, now: Date) {
  return eb.and([eb('status', '=', 'waiting_deposit'), eb('expires_at', '<=', now)]);
}

/** The status as read at `now`, as a selectable expression (partner stats count by it). */
export function statusAsReadSql(eb: Orders, now: Date) {
  return eb.case().when(waitingPastExpiry(eb, now)).then('expired').else(eb.ref('status')).end().$castTo<OrderStatus>();
}

/**
 * The orders whose status reads as one of `statuses` at `now`, written over stored statuses so
 * the status index still serves it: `expired` also takes waiting orders past expiry, and
 * `waiting_deposit` leaves them out.
 */
export function statusReadsAs(eb: Orders, statuses: readonly OrderStatus[], now: Date) {
  const waiting = statuses.includes('waiting_deposit');
  const expired = statuses.includes('expired');
  // Both asked: every stored waiting order matches, whichever way it reads now.
  const stored = statuses.filter((status) => status !== 'waiting_deposit' || expired);
  const branches = [];
  if (stored.length > 0) branches.push(eb('status', 'in', stored));
  // The complement of waitingPastExpiry, written as a range so expires_at's bound stays sargable.
  if (waiting && !expired) branches.push(eb.and([eb('status', '=', 'waiting_deposit'), eb('expires_at', '>', now)]));
  if (expired && !waiting) branches.push(waitingPastExpiry(eb, now));
  return eb.or(branches);
}
