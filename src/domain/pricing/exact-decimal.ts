import { Decimal } from '../money.js';

/**
 * Significant digits kept when a ratio must be published as a decimal although it may not
 * terminate (the exact net rate, a feed price given as a quotient). Rounded toward zero, so the
 * value never overstates the ratio.
 */
export const RATIO_SIGNIFICANT_DIGITS = 40;

const RatioDecimal = Decimal.clone({ precision: RATIO_SIGNIFICANT_DIGITS, rounding: Decimal.ROUND_DOWN });

function assertRatioOperands(numerator: Decimal, denominator: Decimal, places: number): void {
  if (!numerator.isFinite() || !denominator.isFinite() || !denominator.gt(0)) {
    throw new RangeError(`ratio needs a finite numerator and a finite positive denominator`);
  }
  if (!Number.isSafeInteger(places) || places < 0) {
    throw new RangeError(`decimal places must be a non-negative integer, got ${places}`);
  }
}

/**
 * The largest multiple of 10^-places that is ≤ numerator / denominator (true floor, also for a
 * negative numerator). Exact: computed by integer division, not by a rounded quotient.
 */
export function floorRatio(numerator: Decimal, denominator: Decimal, places: number): Decimal {
  assertRatioOperands(numerator, denominator, places);
  const unit = new Decimal(`1e-${places}`);
  const scaled = numerator.div(unit); // a shift of the exponent, exact
  const truncated = scaled.divToInt(denominator); // toward zero
  const floored = truncated.times(denominator).gt(scaled) ? truncated.minus(1) : truncated;
  return floored.times(unit);
}

/** The smallest multiple of 10^-places that is ≥ numerator / denominator. Exact, like floorRatio. */
export function ceilRatio(numerator: Decimal, denominator: Decimal, places: number): Decimal {
  assertRatioOperands(numerator, denominator, places);
  return floorRatio(numerator.neg(), denominator, places).neg();
}

/**
 * numerator / denominator truncated toward zero to RATIO_SIGNIFICANT_DIGITS significant digits
 * (decimal.js division keeps the remainder, so the truncation is correct, not double-rounded).
 */
export function ratioToSignificantDigits(numerator: Decimal, denominator: Decimal): Decimal {
  // Re-homed in the exact constructor: a value keeps its constructor, and arithmetic on a
  // RatioDecimal would round every later product to 40 digits.
  return new Decimal(new RatioDecimal(numerator).div(new RatioDecimal(denominator)));
}
