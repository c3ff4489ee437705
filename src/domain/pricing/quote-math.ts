import { Decimal } from '../money.js';
import { ceilRatio, floorRatio } from './exact-decimal.js';
import type { CurrencyTerms, PairPricing } from './pair-pricing.js';
import { ceilDiv, floorDiv, fromScaled, pow10, significantQuotient, toScaled, unitsAt } from './scaled-integer.js';

/** Basis points in a whole: a fee of 10 000 bps would take the entire amount. */
export const BPS_PER_UNIT = 10_000;

/** The pair cannot be quoted at all (no usable price, fees eat everything, or no amount fits both sides' limits). */
export interface PairUnavailable {
  ok: false;
  reason: 'pair_unavailable';
}

/** Amounts of `coin_from` the pair accepts, both inclusive and with at most `from.decimals` places. */
export interface PairLimits {
  ok: true;
  minAmount: Decimal;
  maxAmount: Decimal;
}

export type PairLimitsResult = PairLimits | PairUnavailable;

/** A priced amount. All coin amounts are in `coin_to` units except the limits (in `coin_from`). */
export interface Quote {
  ok: true;
  /**
   * Published rate: coin_to per 1 coin_from, net of every fee including the payout fee, rounded
   * DOWN to `to.decimals`. Because it is rounded down, amountFrom × rate ≤ the exact amount_to.
   */
  rate: Decimal;
  /**
   * The net rate before publishing rounding: exact amount_to / amountFrom truncated toward zero to
   * RATIO_SIGNIFICANT_DIGITS (40) significant digits (exact whenever the quotient terminates
   * sooner). This is what a fixed-rate order locks.
   */
  exactRate: Decimal;
  /**
   * amount_to_expected: the exact net amount rounded DOWN to `to.decimals`, so it never exceeds the
   * exact value and falls short of it by less than one unit of the last decimal.
   *
   * It is computed from the exact value, not from the published rate, so it is at least
   * amountFrom × rate rounded down to `to.decimals`. It can be below the UNROUNDED product
   * amountFrom × rate, which may carry more decimals than coin_to has: e.g. exact amount_to
   * 1.0000009 (6 decimals) from 1.5 gives amount_to 1.000000 and rate 0.666667, yet
   * 1.5 × 0.666667 = 1.0000005.
   */
  amountTo: Decimal;
  /** The pair's limits, as pairLimits returns them, so the caller can show them alongside. */
  minAmount: Decimal;
  maxAmount: Decimal;
}

/** The amount lies outside the pair's limits; carries them so the client can correct the amount. */
export interface AmountOutOfRange {
  ok: false;
  reason: 'below_min' | 'above_max';
  minAmount: Decimal;
  maxAmount: Decimal;
}

/** The amount has more decimal places than `coin_from` allows. */
export interface TooManyDecimals {
  ok: false;
  reason: 'too_many_decimals';
  /** Decimal places `coin_from` allows. */
  decimals: number;
}

export type QuoteResult = Quote | PairUnavailable | AmountOutOfRange | TooManyDecimals;

/**
 * No fresh USD price for one coin of the pair (its feeds are stale or down): not the amount's
 * fault, and it may pass. The engine itself never returns it: the price book is read before it.
 */
export interface PriceMissing {
  ok: false;
  reason: 'no_price';
  /** The coin whose price is missing, e.g. `BTC`. */
  coin: string;
}

const UNAVAILABLE: PairUnavailable = Object.freeze({ ok: false, reason: 'pair_unavailable' });

/**
 * Total fee in bps taken multiplicatively from the gross amount: operator spread + fixed-rate
 * premium (only for `fixed`) + partner markup. The payout fee is separate (absolute, in coin_to).
 */
export function totalFeeBps(p: PairPricing): number {
  const premium = p.rateType === 'fixed' ? p.settings.fixedPremiumBps : 0;
  return p.settings.spreadBps + premium + p.markupBps;
}

/**
 * The pair's conversion written as one fraction so every rounding is a single exact floor/ceil:
 *   net amount_to(x) = (x × perUnit − payoutFee × scale) / scale
 * with perUnit = priceFrom × (10000 − totalBps) and scale = priceTo × 10000, which is
 * x × (priceFrom / priceTo) × (1 − totalBps/10000) − payoutFee.
 */
export interface Conversion {
  perUnit: Decimal;
  scale: Decimal;
  payoutFee: Decimal;
}

/** Numerator of net amount_to(amountFrom) over `scale`; exact. */
function netNumerator(c: Conversion, amountFrom: Decimal): Decimal {
  return amountFrom.times(c.perUnit).minus(c.payoutFee.times(c.scale));
}

/** Numerator (over `perUnit`) of the coin_from amount whose net amount_to is exactly `amountTo`. */
function amountFromForNet(c: Conversion, amountTo: Decimal): Decimal {
  return amountTo.plus(c.payoutFee).times(c.scale);
}

function assertBps(value: number, field: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${field} must be a non-negative integer number of bps, got ${value}`);
  }
}

function assertCurrencyTerms(t: CurrencyTerms, side: 'from' | 'to'): void {
  if (!Number.isSafeInteger(t.decimals) || t.decimals < 0) {
    throw new RangeError(`${side}.decimals must be a non-negative integer, got ${t.decimals}`);
  }
  for (const field of ['minAmount', 'maxAmount', 'payoutFee'] as const) {
    const v = t[field];
    if (!v.isFinite() || v.isNegative()) {
      throw new RangeError(`${side}.${field} must be a finite non-negative decimal, got ${v.toString()}`);
    }
  }
}

/**
 * Malformed configuration is a bug upstream (currency and partner settings are validated when
 * stored), so it throws; a missing or zero price is an expected market condition, so it is not
 * checked here but reported as pair_unavailable.
 */
function assertWellFormed(p: PairPricing): void {
  assertCurrencyTerms(p.from, 'from');
  assertCurrencyTerms(p.to, 'to');
  assertBps(p.settings.spreadBps, 'settings.spreadBps');
  assertBps(p.settings.fixedPremiumBps, 'settings.fixedPremiumBps');
  assertBps(p.markupBps, 'markupBps');
}

function isUsablePrice(price: Decimal): boolean {
  return price.isFinite() && price.gt(0);
}

/**
 * An offered pair with everything that does not depend on the amount: the conversion fraction and
 * the limits (four exact ratio roundings). offerPair computes it once for a set of prices, terms
 * and fees; quoteOffered then prices any number of amounts against it. Frozen; callers should treat
 * it as opaque and keep it only while its inputs are unchanged.
 */
export interface OfferedPair {
  readonly ok: true;
  /** Decimal places coin_from amounts may carry (from.decimals). */
  readonly fromDecimals: number;
  /** Decimal places of coin_to amounts (to.decimals). */
  readonly toDecimals: number;
  readonly conversion: Readonly<Conversion>;
  /** The limits, as amounts are compared against them and quotes publish them. */
  readonly minAmount: Decimal;
  readonly maxAmount: Decimal;
  /**
   * The same limits in coin_to (docs/contract.md §7.1): the payouts at minAmount and at maxAmount, rounded
   * DOWN to to.decimals. A reverse quote accepts exactly the amount_to values in between.
   */
  readonly minAmountTo: Decimal;
  readonly maxAmountTo: Decimal;
  /** The conversion again as scaled integers, for the per-amount half (IntegerConversion). */
  readonly integer: IntegerConversion;
}

export type OfferedPairResult = OfferedPair | PairUnavailable;

/**
 * The conversion with every factor that does not depend on the amount folded into bigints, so a
 * quote is a few integer products and floor divisions (decimal.js at 1000 digits cost
 * about 13 µs a quote). With a = amountFrom × 10^fromDecimals (an integer: the decimals are
 * checked first) and t = amountTo × 10^toDecimals:
 *   net numerator   n(a) = a × perUnitUnits − feeTimesScaleUnits        (the numerator over 10^E)
 *   amount_to       ⌊n(a) × amountToFactor / amountToDivisor⌋ / 10^toDecimals
 *   rate            ⌊n(a) × amountToFactor × 10^fromDecimals / (amountToDivisor × a)⌋ / 10^toDecimals
 *   exact rate      n(a) × 10^fromDecimals × amountToFactor / (amountToDivisor × a × 10^toDecimals), 40 digits
 *   reverse a(t)    ⌈(t × 10^shiftTo + feeUnitsTo) × reverseFactor / reverseDivisor⌉
 * Each is the same ratio the Decimal formulas floor (quote-math-split.property.test.ts checks
 * them against the decimal reference).
 */
export interface IntegerConversion {
  readonly perUnitUnits: bigint;
  readonly feeTimesScaleUnits: bigint;
  readonly amountToFactor: bigint;
  readonly amountToDivisor: bigint;
  readonly shiftTo: bigint;
  readonly feeUnitsTo: bigint;
  readonly reverseFactor: bigint;
  readonly reverseDivisor: bigint;
}

/** A ratio's exponent moved to whichever side keeps both integers: 10^k over 1, or 1 over 10^-k. */
function powerRatio(k: number): { up: bigint; down: bigint } {
  return k >= 0 ? { up: pow10(k), down: 1n } : { up: 1n, down: pow10(-k) };
}

function integerConversion(c: Conversion, fromDecimals: number, toDecimals: number): IntegerConversion {
  const perUnit = toScaled(c.perUnit);
  const scale = toScaled(c.scale);
  const fee = toScaled(c.payoutFee);
  // net(x) = x × perUnit − fee × scale, over 10^E with E the finer of the two terms' scales.
  const amountTerm = fromDecimals + perUnit.scale;
  const feeTerm = fee.scale + scale.scale;
  const e = Math.max(amountTerm, feeTerm);
  // amount_to × 10^toDecimals = n × 10^(toDecimals + scale.scale − E) / scale.units
  const toShift = powerRatio(toDecimals + scale.scale - e);
  // Reverse: a ≥ (t / 10^toDecimals + fee) × scale / perUnit × 10^fromDecimals, all over 10^F,
  // F the finer of toDecimals and the fee's scale.
  const f = Math.max(toDecimals, fee.scale);
  const reverseShift = powerRatio(fromDecimals + perUnit.scale - f - scale.scale);
  return Object.freeze({
    perUnitUnits: perUnit.units * pow10(e - amountTerm),
    feeTimesScaleUnits: fee.units * scale.units * pow10(e - feeTerm),
    amountToFactor: toShift.up,
    amountToDivisor: scale.units * toShift.down,
    shiftTo: pow10(f - toDecimals),
    feeUnitsTo: fee.units * pow10(f - fee.scale),
    reverseFactor: scale.units * reverseShift.up,
    reverseDivisor: perUnit.units * reverseShift.down,
  });
}

/**
 * The per-pair half of quoteAmount: validates the pricing input, builds the conversion and the
 * limits, or reports pair_unavailable (see pairLimits for when). Throws RangeError only for
 * malformed input, like quoteAmount.
 */
export function offerPair(p: PairPricing): OfferedPairResult {
  assertWellFormed(p);
  const bps = totalFeeBps(p);
  if (!isUsablePrice(p.priceFromUsd) || !isUsablePrice(p.priceToUsd) || bps >= BPS_PER_UNIT) {
    return UNAVAILABLE;
  }
  const conversion: Conversion = Object.freeze({
    perUnit: p.priceFromUsd.times(BPS_PER_UNIT - bps),
    scale: p.priceToUsd.times(BPS_PER_UNIT),
    payoutFee: p.to.payoutFee,
  });
  const fromPlaces = p.from.decimals;
  const one = new Decimal(1);

  // Rounded UP: the smallest coin_from amount (at its precision) that satisfies both minimums.
  const minFromSource = ceilRatio(p.from.minAmount, one, fromPlaces);
  const minFromDestination = ceilRatio(amountFromForNet(conversion, p.to.minAmount), conversion.perUnit, fromPlaces);
  const minAmount = minFromSource.gt(minFromDestination) ? minFromSource : minFromDestination;

  // Rounded DOWN: the largest amount that stays within both maximums. The destination maximum is
  // converted back like the minimum, i.e. it caps the NET payout (after the payout fee).
  const maxFromSource = floorRatio(p.from.maxAmount, one, fromPlaces);
  const maxFromDestination = floorRatio(amountFromForNet(conversion, p.to.maxAmount), conversion.perUnit, fromPlaces);
  const maxAmount = maxFromSource.lt(maxFromDestination) ? maxFromSource : maxFromDestination;

  if (minAmount.gt(maxAmount)) return UNAVAILABLE;
  // Checked on the payable (rounded-down) amount, not just the exact one, so every amount the pair
  // accepts pays out something: amount_to is non-decreasing in the amount, so min is the worst case.
  const payableAtMin = floorRatio(netNumerator(conversion, minAmount), conversion.scale, p.to.decimals);
  if (!payableAtMin.gt(0)) return UNAVAILABLE;

  return Object.freeze({
    ok: true,
    fromDecimals: p.from.decimals,
    toDecimals: p.to.decimals,
    conversion,
    minAmount,
    maxAmount,
    minAmountTo: payableAtMin,
    maxAmountTo: floorRatio(netNumerator(conversion, maxAmount), conversion.scale, p.to.decimals),
    integer: integerConversion(conversion, p.from.decimals, p.to.decimals),
  });
}

/**
 * The pair's accepted coin_from range: min = max(source minimum, destination minimum converted
 * back through fees and payout fee) rounded UP to from.decimals; max = min(source maximum,
 * destination maximum converted back) rounded DOWN. pair_unavailable when a price is not > 0,
 * total fees reach 10 000 bps, min > max, or the minimum would pay out nothing.
 * Throws RangeError only for malformed input (negative bps or amounts, fractional decimals).
 */
export function pairLimits(p: PairPricing): PairLimitsResult {
  const offered = offerPair(p);
  if (!offered.ok) return offered;
  return { ok: true, minAmount: offered.minAmount, maxAmount: offered.maxAmount };
}

/** Throws RangeError for a non-finite amount: a bug upstream, not a user error. */
export function assertFiniteAmount(amountFrom: Decimal): void {
  if (!amountFrom.isFinite()) {
    throw new RangeError(`amountFrom must be a finite decimal, got ${amountFrom.toString()}`);
  }
}

/**
 * The per-amount half of quoteAmount: prices `amountFrom` against a pair from offerPair.
 * quoteOffered(offerPair(p), x) gives exactly quoteAmount(p, x), except that quoteAmount checks the
 * amount's finiteness before validating `p` (both throw RangeError).
 */
export function quoteOffered(offered: OfferedPairResult, amountFrom: Decimal): QuoteResult {
  assertFiniteAmount(amountFrom);
  if (!offered.ok) return UNAVAILABLE;
  if (amountFrom.decimalPlaces() > offered.fromDecimals) {
    return { ok: false, reason: 'too_many_decimals', decimals: offered.fromDecimals };
  }
  const { minAmount, maxAmount } = offered;
  if (amountFrom.lt(minAmount)) return { ok: false, reason: 'below_min', minAmount, maxAmount };
  if (amountFrom.gt(maxAmount)) return { ok: false, reason: 'above_max', minAmount, maxAmount };

  // Scaled integers (IntegerConversion): a is amountFrom in units of 10^-fromDecimals.
  const c = offered.integer;
  const a = unitsAt(amountFrom, offered.fromDecimals);
  const n = a * c.perUnitUnits - c.feeTimesScaleUnits;
  const amountToUnits = n * c.amountToFactor;
  // exact net rate = amount_to / amountFrom = amountToUnits × 10^fromDecimals / (divisor × a × 10^toDecimals)
  const rateNumerator = amountToUnits * pow10(offered.fromDecimals);
  const rateDivisor = c.amountToDivisor * a;
  return {
    ok: true,
    rate: fromScaled(floorDiv(rateNumerator, rateDivisor), offered.toDecimals),
    exactRate: significantQuotient(rateNumerator, rateDivisor * pow10(offered.toDecimals)),
    amountTo: fromScaled(floorDiv(amountToUnits, c.amountToDivisor), offered.toDecimals),
    minAmount,
    maxAmount,
  };
}

/**
 * Quotes `amountFrom` (coin_from units): amount_to = amountFrom × priceFrom/priceTo ×
 * (1 − totalBps/10000) − payoutFee, rounded DOWN to to.decimals, plus the published and exact
 * net rates. Checks, in order: pair offered, decimals of amountFrom, limits.
 * Throws RangeError for a non-finite amount or malformed pricing input (bugs, not user errors).
 * To price many amounts of one pair, compute offerPair once and call quoteOffered.
 */
export function quoteAmount(p: PairPricing, amountFrom: Decimal): QuoteResult {
  assertFiniteAmount(amountFrom);
  return quoteOffered(offerPair(p), amountFrom);
}

/** The coin_from amount a reverse quote prices (reverseAmountFrom). */
export interface ReverseAmount {
  ok: true;
  amountFrom: Decimal;
}

export type ReverseAmountResult = ReverseAmount | PairUnavailable | AmountOutOfRange | TooManyDecimals;

/**
 * The amount a reverse quote prices: the smallest coin_from amount (at from.decimals, so rounded
 * UP) whose payout reaches `amountTo` (coin_to units), and never less than the pair's minimum.
 *
 * Accepted: amountTo with at most to.decimals places (else too_many_decimals with to.decimals)
 * within [minAmountTo, maxAmountTo], the payouts at the pair's limits; outside them below_min or
 * above_max with the coin_from limits, as a forward quote reports them.
 *
 * Why the ceiling is exact: amountTo carries at most to.decimals places, so
 * floor(net(x)) ≥ amountTo ⟺ net(x) ≥ amountTo ⟺ x ≥ (amountTo + payoutFee) × scale / perUnit,
 * and ceilRatio gives the smallest multiple of 10^-from.decimals at or above that bound.
 * Throws RangeError for a non-finite amountTo (a bug upstream).
 */
export function reverseAmountFrom(offered: OfferedPairResult, amountTo: Decimal): ReverseAmountResult {
  if (!amountTo.isFinite()) throw new RangeError(`amountTo must be a finite decimal, got ${amountTo.toString()}`);
  if (!offered.ok) return UNAVAILABLE;
  if (amountTo.decimalPlaces() > offered.toDecimals) {
    return { ok: false, reason: 'too_many_decimals', decimals: offered.toDecimals };
  }
  const { minAmount, maxAmount } = offered;
  if (amountTo.lt(offered.minAmountTo)) return { ok: false, reason: 'below_min', minAmount, maxAmount };
  if (amountTo.gt(offered.maxAmountTo)) return { ok: false, reason: 'above_max', minAmount, maxAmount };
  const c = offered.integer;
  const t = unitsAt(amountTo, offered.toDecimals);
  const smallest = fromScaled(
    ceilDiv((t * c.shiftTo + c.feeUnitsTo) * c.reverseFactor, c.reverseDivisor),
    offered.fromDecimals,
  );
  // smallest ≤ maxAmount: the payout at maxAmount (maxAmountTo) reaches amountTo.
  return { ok: true, amountFrom: smallest.lt(minAmount) ? minAmount : smallest };
}

/**
 * A reverse quote: quoteOffered at reverseAmountFrom's amount, so its amountTo is what that
 * amount pays (≥ the one asked), or reverseAmountFrom's refusal.
 */
export function quoteOfferedTo(offered: OfferedPairResult, amountTo: Decimal): QuoteResult {
  const reverse = reverseAmountFrom(offered, amountTo);
  return reverse.ok ? quoteOffered(offered, reverse.amountFrom) : reverse;
}

/** quoteOfferedTo(offerPair(p), amountTo): the whole reverse quote for one amount. */
export function quoteAmountTo(p: PairPricing, amountTo: Decimal): QuoteResult {
  if (!amountTo.isFinite()) throw new RangeError(`amountTo must be a finite decimal, got ${amountTo.toString()}`);
  return quoteOfferedTo(offerPair(p), amountTo);
}
