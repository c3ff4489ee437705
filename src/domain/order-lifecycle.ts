import { isOrderStatus, type OrderStatus } from './order-status.js';

/**
 * The order state machine of DESIGN §4 as a pure table: given a status and an event, the next
 * status, or a refusal. Side effects (payout requests, fields) are decided by the lifecycle
 * service from the same table, inside the transaction that applies the move.
 */
export type LifecycleEvent =
  /** A deposit transaction is seen at the order's address (before expires_at). */
  | 'deposit_seen'
  /** Confirmations grew; `confirmed` when they reach the required number. */
  | 'confirmations'
  | 'confirmed'
  /** A reorg removed the deposit. */
  | 'deposit_dropped'
  /** No deposit by expires_at. */
  | 'time_limit'
  /** The exchange filled with an acceptable received amount. */
  | 'exchange_filled'
  /** Amount outside limits, fixed-rate mismatch, or the exchange failed for good. */
  | 'cannot_proceed'
  | 'payout_sent'
  | 'payout_failed'
  | 'refund_sent'
  /** A deposit arrived after the order expired. */
  | 'late_deposit'
  /** The operator failed the order by hand. */
  | 'operator_fail';

export const FINAL_STATUSES: ReadonlySet<OrderStatus> = new Set(['completed', 'expired', 'refunded', 'failed']);

/** Context a few moves depend on. */
export interface TransitionContext {
  /** The order's deposit window has passed. */
  pastExpiry: boolean;
  /** A refund address is known, so a failed exchange can be refunded. */
  hasRefundAddress: boolean;
}

export type TransitionResult = { ok: true; to: OrderStatus } | { ok: false; reason: string };

/** The next status, or else the reason the move is refused. */
type Rule = (context: TransitionContext) => string;

const refundOrFail = (context: TransitionContext): OrderStatus => (context.hasRefundAddress ? 'refunding' : 'failed');

/** status → event → rule. A missing entry is a move the table does not allow. */
const TABLE: Partial<Record<OrderStatus, Partial<Record<LifecycleEvent, Rule>>>> = {
  waiting_deposit: {
    deposit_seen: (c) => (c.pastExpiry ? 'deposit after expires_at: expire the order first' : 'confirming'),
    time_limit: (c) => (c.pastExpiry ? 'expired' : 'the deposit window is still open'),
    // Past expires_at the order already reads expired (a final state) before the sweep stores it.
    operator_fail: (c) => (c.pastExpiry ? 'the order has expired' : 'failed'),
  },
  confirming: {
    confirmations: () => 'confirming',
    confirmed: () => 'exchanging',
    deposit_dropped: (c) => (c.pastExpiry ? 'expired' : 'waiting_deposit'),
    operator_fail: () => 'failed',
  },
  exchanging: {
    exchange_filled: () => 'sending',
    cannot_proceed: refundOrFail,
    operator_fail: () => 'failed',
  },
  sending: {
    payout_sent: () => 'completed',
    payout_failed: () => 'failed',
    operator_fail: () => 'failed',
  },
  refunding: {
    refund_sent: () => 'refunded',
    operator_fail: () => 'failed',
  },
  expired: {
    late_deposit: refundOrFail,
  },
};

export function transition(from: OrderStatus, event: LifecycleEvent, context: TransitionContext): TransitionResult {
  const rule = TABLE[from]?.[event];
  if (rule === undefined) return { ok: false, reason: `${event} is not allowed in status ${from}` };
  const outcome = rule(context);
  return isOrderStatus(outcome) ? { ok: true, to: outcome } : { ok: false, reason: outcome };
}

/** Why an order went to refunding or failed (`status_reason`). */
export type StatusReason =
  | 'amount_below_min'
  | 'amount_above_max'
  | 'fixed_rate_mismatch'
  | 'late_deposit'
  | 'exchange_failed'
  | 'payout_failed'
  | 'operator';
