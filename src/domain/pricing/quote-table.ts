import type { Decimal } from '../money.js';
import type { PairPricing } from './pair-pricing.js';
import { offerPair, reverseAmountFrom, type OfferedPair, type OfferedPairResult, type QuoteResult } from './quote-math.js';
import { floorDiv, fromScaled, pow10, significantQuotient, unitsAt } from './scaled-integer.js';

/**
 * One row of the quote table (docs/adr/0058-quote-tables.md): a pair, rate type and markup at one
 * set of prices, with everything that does not depend on the amount folded into scaled integers
 * once, when the prices change. A quote is then a lookup of the row, the amount's units, one
 * multiplication less a constant and one floor division (amount_to), plus one more division for
 * the published rate and its 40-digit exact twin (what a fixed order locks). Equal to quoteOffered(offerPair(p), x) in every outcome (quote-table.property.test.ts).
 */
export interface QuoteRow {
  readonly offered: OfferedPairResult;
  /** The limits as units of 10^-fromDecimals (compared as integers, not Decimals). */
  readonly minUnits: bigint;
  readonly maxUnits: bigint;
  /** amount_to × 10^toDecimals × divisor = a × perAmount − offset, with a = amount × 10^fromDecimals. */
  readonly perAmount: bigint;
  readonly offset: bigint;
  readonly divisor: bigint;
  /** 10^fromDecimals, 10^toDecimals. */
  readonly fromUnit: bigint;
  readonly toUnit: bigint;
}

/** The row for `p`, or an unavailable one (every quote of it is pair_unavailable). */
export function quoteRow(p: PairPricing): QuoteRow {
  return quoteRowOf(offerPair(p));
}

/** The row of a pair offerPair already priced. */
export function quoteRowOf(offered: OfferedPairResult): QuoteRow {
  if (!offered.ok) return { offered, minUnits: 0n, maxUnits: -1n, perAmount: 0n, offset: 0n, divisor: 1n, fromUnit: 1n, toUnit: 1n };
  const c = offered.integer;
  return Object.freeze({
    offered,
    minUnits: unitsAt(offered.minAmount, offered.fromDecimals),
    maxUnits: unitsAt(offered.maxAmount, offered.fromDecimals),
    perAmount: c.perUnitUnits * c.amountToFactor,
    offset: c.feeTimesScaleUnits * c.amountToFactor,
    divisor: c.amountToDivisor,
    fromUnit: pow10(offered.fromDecimals),
    toUnit: pow10(offered.toDecimals),
  });
}

/** quoteOffered(row.offered, amountFrom), from the row. */
export function tableQuote(row: QuoteRow, amountFrom: Decimal): QuoteResult {
  if (!amountFrom.isFinite()) throw new RangeError(`amountFrom must be a finite decimal, got ${amountFrom.toString()}`);
  const offered = row.offered;
  if (!offered.ok) return offered;
  if (amountFrom.decimalPlaces() > offered.fromDecimals) return { ok: false, reason: 'too_many_decimals', decimals: offered.fromDecimals };
  const a = unitsAt(amountFrom, offered.fromDecimals);
  return quoteUnits(row, offered, a);
}

/** The reverse quote (quoteOfferedTo): the smallest amount whose payout reaches amountTo, priced from the row. */
export function tableQuoteTo(row: QuoteRow, amountTo: Decimal): QuoteResult {
  const reverse = reverseAmountFrom(row.offered, amountTo);
  if (!reverse.ok) return reverse;
  return tableQuote(row, reverse.amountFrom);
}

function quoteUnits(row: QuoteRow, offered: OfferedPair, a: bigint): QuoteResult {
  const { minAmount, maxAmount } = offered;
  if (a < row.minUnits) return { ok: false, reason: 'below_min', minAmount, maxAmount };
  if (a > row.maxUnits) return { ok: false, reason: 'above_max', minAmount, maxAmount };
  const amountToUnits = a * row.perAmount - row.offset;
  const rateNumerator = amountToUnits * row.fromUnit;
  const rateDivisor = row.divisor * a;
  return {
    ok: true,
    rate: fromScaled(floorDiv(rateNumerator, rateDivisor), offered.toDecimals),
    exactRate: significantQuotient(rateNumerator, rateDivisor * row.toUnit),
    amountTo: fromScaled(floorDiv(amountToUnits, row.divisor), offered.toDecimals),
    minAmount,
    maxAmount,
  };
}
