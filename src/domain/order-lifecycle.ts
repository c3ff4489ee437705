import { isOrderStatus, type Moment, type OrderStatus } from './order-status.js';

/**
 * The order state machine of docs/contract.md §4 as a pure table: given a status and an event, the next
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
  /**
   * The payout waits (the signer's hot wallet cannot cover it now, `awaiting_liquidity`) or no
   * longer does: the order stays sending, its status_reason says which (docs/contract.md §11).
   */
  | 'payout_waiting'
  | 'refund_sent'
  /** A deposit arrived after the order expired. */
  | 'late_deposit'
  /** The operator failed the order by hand. */
  | 'operator_fail'
  /** Action (docs/contract.md §7.5): the partner or operator cancels an order still waiting for its deposit. */
  | 'cancel'
  /** Action: the partner or operator sets (or changes) the refund address, until a refund is requested. */
  | 'set_refund_address'
  /** Action: a held refund is declined; the received amount is re-priced at the float rate and exchanged. */
  | 'continue'
  /** Action: a held refund is asked for now. */
  | 'refund'
  /** The refund hold ran out (REFUND_HOLD_MINUTES): the refund proceeds. */
  | 'hold_expired';

export const FINAL_STATUSES: ReadonlySet<OrderStatus> = new Set(['completed', 'expired', 'refunded', 'failed']);

/**
 * A refund held for the partner's choice (docs/contract.md §7.5): `none`, `active` (continue or refund may
 * be chosen) or `lapsed` (its time ran out; the worker lets the refund proceed).
 */
export type RefundHold = 'none' | 'active' | 'lapsed';

/** Context a few moves depend on. */
export interface TransitionContext {
  /** The order's deposit window has passed. */
  pastExpiry: boolean;
  /**
   * A refund can be sent: a refund address is known, with its tag where the deposit chain routes
   * by memo (a refund there without one would be lost).
   */
  hasRefundAddress: boolean;
  refundHold: RefundHold;
}

/**
 * The refund of an order in `status` is requested: it is refunding, not held, and has where to
 * send it. The move into such a state records the refund request (services/order-lifecycle.ts),
 * so a refund is requested exactly once, and from then on its address is fixed.
 */
export function refundRequested(status: OrderStatus, context: TransitionContext): boolean {
  return status === 'refunding' && context.refundHold === 'none' && context.hasRefundAddress;
}

export type TransitionResult = { ok: true; to: OrderStatus } | { ok: false; reason: string };

/** The next status, or else the reason the move is refused. */
type Rule = (context: TransitionContext) => string;

/** status → event → rule. A missing entry is a move the table does not allow. */
const TABLE: Partial<Record<OrderStatus, Partial<Record<LifecycleEvent, Rule>>>> = {
  waiting_deposit: {
    deposit_seen: (c) => (c.pastExpiry ? 'deposit after expires_at: expire the order first' : 'confirming'),
    time_limit: (c) => (c.pastExpiry ? 'expired' : 'the deposit window is still open'),
    // Past expires_at the order already reads expired (a final state) before the sweep stores it.
    operator_fail: (c) => (c.pastExpiry ? 'the order has expired' : 'failed'),
    // Only before a deposit is seen (a seen deposit moves the order to confirming); a deposit
    // arriving later is a late deposit, refunded.
    cancel: (c) => (c.pastExpiry ? 'the order has expired' : 'expired'),
    set_refund_address: (c) => (c.pastExpiry ? 'the order has expired' : 'waiting_deposit'),
  },
  confirming: {
    confirmations: () => 'confirming',
    confirmed: () => 'exchanging',
    deposit_dropped: (c) => (c.pastExpiry ? 'expired' : 'waiting_deposit'),
    operator_fail: () => 'failed',
    set_refund_address: () => 'confirming',
  },
  exchanging: {
    exchange_filled: () => 'sending',
    // Without a refund address the order waits in refunding for one (docs/contract.md §7.5).
    cannot_proceed: () => 'refunding',
    operator_fail: () => 'failed',
    set_refund_address: () => 'exchanging',
  },
  sending: {
    payout_sent: () => 'completed',
    payout_waiting: () => 'sending',
    payout_failed: () => 'failed',
    operator_fail: () => 'failed',
  },
  refunding: {
    refund_sent: (c) => (refundRequested('refunding', c) ? 'refunded' : 'no refund has been requested'),
    operator_fail: () => 'failed',
    set_refund_address: (c) => (refundRequested('refunding', c) ? 'the refund was already requested' : 'refunding'),
    continue: (c) => (c.refundHold === 'active' ? 'exchanging' : 'the refund is not held for a choice'),
    refund: (c) => (c.refundHold === 'active' ? 'refunding' : 'the refund is not held for a choice'),
    hold_expired: (c) => (c.refundHold === 'lapsed' ? 'refunding' : 'no refund hold has run out'),
  },
  expired: {
    late_deposit: () => 'refunding',
  },
};

export function transition(from: OrderStatus, event: LifecycleEvent, context: TransitionContext): TransitionResult {
  const rule = TABLE[from]?.[event];
  if (rule === undefined) return { ok: false, reason: `${event} is not allowed in status ${from}` };
  const outcome = rule(context);
  return isOrderStatus(outcome) ? { ok: true, to: outcome } : { ok: false, reason: outcome };
}

/** What a partner (or the operator) may do to an order, in the order `actions` lists them (docs/contract.md §7.5). */
export const ORDER_ACTIONS = ['cancel', 'set_refund_address', 'continue', 'refund'] as const;
export type OrderAction = (typeof ORDER_ACTIONS)[number];

/** Each action is one event of the table: it is offered exactly when the table allows that move. */
export const ACTION_EVENTS: Readonly<Record<OrderAction, LifecycleEvent>> = {
  cancel: 'cancel',
  set_refund_address: 'set_refund_address',
  continue: 'continue',
  refund: 'refund',
};

/** The actions of an order in `status` (as it reads now) with `context`: computed from the table, never a second set of rules. */
export function actionsFor(status: OrderStatus, context: TransitionContext): OrderAction[] {
  return ORDER_ACTIONS.filter((action) => transition(status, ACTION_EVENTS[action], context).ok);
}

/** What the context is made of: the order's columns (times as Dates, or as the wire query's ISO text). */
export interface OrderContextFields<T extends Moment = Date> {
  expires_at: T;
  refund_address: string | null;
  refund_address_tag: string | null;
  /** Non-null exactly when the deposit chain routes by memo: a refund there needs a tag too. */
  deposit_address_tag: string | null;
  refund_hold_until: T | null;
}

/** The context of an order at `now`, from its columns. */
export function orderContext<T extends Moment>(order: OrderContextFields<T>, now: T): TransitionContext {
  const hold = order.refund_hold_until;
  return {
    pastExpiry: order.expires_at <= now,
    hasRefundAddress: order.refund_address !== null && (order.deposit_address_tag === null || order.refund_address_tag !== null),
    refundHold: hold === null ? 'none' : hold > now ? 'active' : 'lapsed',
  };
}

/** Why an order went to refunding or failed, or was cancelled (`status_reason`). */
export type StatusReason =
  | 'amount_below_min'
  | 'amount_above_max'
  | 'fixed_rate_mismatch'
  | 'late_deposit'
  | 'exchange_failed'
  | 'payout_failed'
  | 'operator'
  /** Cancelled by its partner or the operator before any deposit (→ expired). */
  | 'cancelled'
  /** Sending, and the hot wallet cannot cover the payout yet: it is paid when it can. */
  | 'awaiting_liquidity';
