import type { Decimal } from './money.js';
import type { StatusReason } from './order-lifecycle.js';
import {
  fixedRatePayout,
  type AmountOutOfRange,
  type PairUnavailable,
  type PriceMissing,
  type TooManyDecimals,
} from './pricing/index.js';

/**
 * The exchange step's decision (docs/contract.md §4): given what an order received and, for a float order,
 * the pair priced at that amount now, whether to fill and for how much, refuse with a reason, or
 * try again later. Pure: the worker gathers the inputs, calls decideExchange and acts on the value.
 */

/**
 * A float pair priced at the received amount (QuoteService.tryPricePair): the payout, or why the
 * pair cannot be priced at that amount now.
 */
export type FloatPricing = { ok: true; amountTo: Decimal } | PairUnavailable | AmountOutOfRange | TooManyDecimals | PriceMissing;

/** A fixed order: exchanged at the rate it locked, if it received what it said it would send. */
export interface FixedExchange {
  rateType: 'fixed';
  /** amount_from_received, in coin_from. */
  received: Decimal;
  /** amount_from_expected, in coin_from. */
  expected: Decimal;
  /** The locked exact rate, coin_to per 1 coin_from. */
  exactRate: Decimal;
  /** Decimal places of coin_to: the payout is rounded down to them. */
  toDecimals: number;
  /** received may differ from expected by at most this percent of expected (FIXED_RATE_TOLERANCE_PCT, default 0.5). */
  tolerancePct: Decimal;
}

/** A float order: exchanged at the current price, if the received amount is within the pair's limits. */
export interface FloatExchange {
  rateType: 'float';
  priced: FloatPricing;
  /** Failed attempts of this step so far (orders.attempts). */
  attempts: number;
  /** Attempts before a pair that cannot be priced gives up (WorkerSettings.maxAttempts, default 5). */
  maxAttempts: number;
}

export type ExchangeInput = FixedExchange | FloatExchange;

/** Why an exchange is refused: stored as the order's status_reason. */
export type RefusalReason = Extract<StatusReason, 'amount_below_min' | 'amount_above_max' | 'fixed_rate_mismatch' | 'exchange_failed'>;

export type ExchangeDecision =
  /** Fill the exchange expecting `amountTo` (coin_to, already rounded down to its decimals). */
  | { kind: 'fill'; amountTo: Decimal }
  /** The order cannot proceed: refund it (or fail it without a refund address). */
  | { kind: 'refuse'; reason: RefusalReason }
  /** Nothing is wrong with the order: the market is not there now. Retry with backoff. */
  | { kind: 'later'; why: string };

export function decideExchange(input: ExchangeInput): ExchangeDecision {
  return input.rateType === 'fixed' ? decideFixed(input) : decideFloat(input);
}

function decideFixed(input: FixedExchange): ExchangeDecision {
  const tolerance = input.expected.times(input.tolerancePct).dividedBy(100);
  if (input.received.minus(input.expected).abs().gt(tolerance)) return { kind: 'refuse', reason: 'fixed_rate_mismatch' };
  const amountTo = fixedRatePayout(input.received, input.exactRate, input.toDecimals);
  // A received amount so small it pays out nothing at the locked rate.
  return amountTo.gt(0) ? { kind: 'fill', amountTo } : { kind: 'refuse', reason: 'fixed_rate_mismatch' };
}

function decideFloat(input: FloatExchange): ExchangeDecision {
  const { priced } = input;
  if (priced.ok) return { kind: 'fill', amountTo: priced.amountTo };
  switch (priced.reason) {
    case 'below_min':
      return { kind: 'refuse', reason: 'amount_below_min' };
    case 'above_max':
      return { kind: 'refuse', reason: 'amount_above_max' };
    case 'too_many_decimals':
      // Finer than coin_from's decimals: the pair cannot take it as it is. There is no closer
      // status_reason, and this is what such a deposit has always been refunded as.
      return { kind: 'refuse', reason: 'amount_below_min' };
    case 'pair_unavailable':
    case 'no_price': {
      // The market may come back: try again later, and give up after the retry budget.
      if (input.attempts + 1 >= input.maxAttempts) return { kind: 'refuse', reason: 'exchange_failed' };
      const why = priced.reason === 'no_price' ? `no fresh price for ${priced.coin}` : 'the pair is not available';
      return { kind: 'later', why };
    }
  }
}

/** What decides whether a refused exchange is held for the partner's choice (docs/contract.md §7.5). */
export interface RefundHoldInput {
  reason: RefusalReason;
  /** REFUND_HOLD_MINUTES: how long the choice is offered; 0 disables holds. Default 30. */
  holdMinutes: number;
  /** The order was continued once already: a second refusal refunds at once (no hold loop). */
  continued: boolean;
  /** The received amount is inside the pair's limits at the float rate now, so continuing can succeed. */
  withinLimits: boolean;
}

/**
 * An amount out of range or off a fixed rate, that the pair could still take at its float rate
 * now, is held so the partner may continue (re-priced at that rate) or refund; anything else
 * (the exchange failed, the amount fits no rate, an order already continued) refunds at once.
 */
export function holdsRefund(input: RefundHoldInput): boolean {
  return input.holdMinutes > 0 && !input.continued && input.withinLimits && input.reason !== 'exchange_failed';
}
