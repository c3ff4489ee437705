import { Decimal } from 'decimal.js';

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
 * Fits the columns amounts and prices are stored in, numeric(38, 18): fewer than 21 integer
 * digits and at most 18 fractional ones. A larger value would make the write fail (a 500); a
 * finer one would be rounded, to zero for the smallest (which breaks the `> 0` checks).
 */
export function isStorableDecimal(value: Decimal): boolean {
  return value.abs().lt('1e20') && value.decimalPlaces() <= 18;
}

/** Number of fractional digits actually used (trailing zeros do not count). */
export function fractionDigits(value: Decimal): number {
  return value.decimalPlaces();
}
