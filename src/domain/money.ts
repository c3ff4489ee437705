// The money module: the only place that imports decimal.js (eslint's no-restricted-imports makes
// any other import of it an error). Every amount, price, rate and fee in the service is a
// Decimal made by the constructor below, so no computation can round where nobody sees it.
import { Decimal as DecimalJs } from 'decimal.js';

/**
 * Significant-digit cap of all money arithmetic.
 *
 * decimal.js only materialises the digits a value actually has, so a high cap costs nothing for
 * ordinary prices and amounts; it exists so that every product, sum and difference of inputs is
 * exact (an input would need hundreds of digits to overflow it). The default constructor keeps
 * 20 and rounds half up: a 3.5 × 40-digit rate product then came out one unit of the 18th
 * decimal above its floor. Money code never uses a plain division whose quotient may not
 * terminate: ratios are rounded explicitly (`floorRatio`, `ceilRatio`,
 * `ratioToSignificantDigits` in domain/pricing/exact-decimal.ts).
 */
export const EXACT_PRECISION = 1000;

/** The exact Decimal constructor (see EXACT_PRECISION); also the type of its values. */
export const Decimal: DecimalJs.Constructor = DecimalJs.clone({ precision: EXACT_PRECISION });
export type Decimal = DecimalJs;
/** What the Decimal constructor accepts: a Decimal, a decimal string or a number. */
export type DecimalValue = DecimalJs.Value;
/** A decimal.js rounding mode, e.g. `Decimal.ROUND_DOWN`. */
export type Rounding = DecimalJs.Rounding;

/** A plain decimal literal: digits, optionally a fraction. No sign, exponent or spaces. */
export const DECIMAL_PATTERN = '^(0|[1-9][0-9]{0,19})(\\.[0-9]{1,18})?$';
const DECIMAL = new RegExp(DECIMAL_PATTERN);

/**
 * An amount as it arrives in JSON: a decimal string is taken exactly; a JSON number has
 * already been through a binary float, and its shortest spelling (`String(n)`) is the literal
 * the client wrote whenever that had at most 15 significant digits.
 */
export function parseDecimalInput(value: string | number): Decimal | undefined {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) return undefined;
    return new Decimal(String(value));
  }
  return DECIMAL.test(value) ? new Decimal(value) : undefined;
}

/**
 * A JSON number exactly as the client wrote it (source text read losslessly). decimal.js takes
 * any literal, but an exponent beyond its range (about ±9e15) becomes Infinity or 0, which no
 * later check expects (`1e99999999999999999999` once reached the response writer: a 500). Such a
 * literal is no amount: undefined, for the caller to refuse with a 400.
 */
export function parseNumberLiteral(literal: string): Decimal | undefined {
  const value = new Decimal(literal);
  return value.isFinite() && (!value.isZero() || /^-?0(\.0+)?([eE][+-]?[0-9]+)?$/.test(literal)) ? value : undefined;
}

/**
 * Fits the columns amounts and prices are stored in, numeric(38, 18): fewer than 21 integer
 * digits and at most 18 fractional ones. A larger value would make the write fail (a 500); a
 * finer one would be rounded, to zero for the smallest (which breaks the `> 0` checks).
 */
export function isStorableDecimal(value: Decimal): boolean {
  return value.abs().lt('1e20') && value.decimalPlaces() <= 18;
}

/** `value` rounded DOWN (toward zero) to `places` decimals: how payouts and quotes are cut. */
export function floorToPlaces(value: Decimal, places: number): Decimal {
  return value.toDecimalPlaces(places, Decimal.ROUND_DOWN);
}

/**
 * An amount in a coin's smallest unit (satoshis, wei): exact, or an error when the amount has
 * more decimals than the coin (a payout must never be rounded on the way to the chain).
 */
export function toBaseUnits(amount: Decimal, decimals: number): bigint {
  const units = amount.times(new Decimal(10).pow(decimals));
  if (!units.isInteger()) throw new RangeError(`${amount.toFixed()} has more than ${decimals} decimals`);
  return BigInt(units.toFixed(0));
}

/** The inverse of toBaseUnits: smallest units back to a decimal amount of the coin. */
export function fromBaseUnits(units: bigint, decimals: number): Decimal {
  return new Decimal(units.toString()).div(new Decimal(10).pow(decimals));
}
