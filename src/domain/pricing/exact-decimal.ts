// Named import: under NodeNext the package's CJS-style typings make the default import untyped.
import { Decimal } from 'decimal.js';

/**
 * Significant-digit cap of the arithmetic used inside the pricing engine.
 *
 * decimal.js only materialises the digits a value actually has, so a high cap costs nothing for
 * ordinary prices and amounts; it exists so that every product, sum and difference of inputs is
 * exact (an input would need hundreds of digits to overflow it). The engine never uses a plain
 * division for money: ratios are rounded with `floorRatio`/`ceilRatio`, which rely on decimal.js's
 * integer division (exact up to this many integer digits).
 */
export const EXACT_PRECISION = 1000;

/** Decimal constructor for the engine's internal arithmetic (see EXACT_PRECISION). */
export const ExactDecimal = Decimal.clone({ precision: EXACT_PRECISION });

/**
 * Significant digits kept when a ratio must be published as a decimal although it may not
 * terminate (the exact net rate). Rounded toward zero, so the value never overstates the ratio.
 */
export const RATIO_SIGNIFICANT_DIGITS = 40;

const RatioDecimal = Decimal.clone({ precision: RATIO_SIGNIFICANT_DIGITS, rounding: Decimal.ROUND_DOWN });

/**
 * Re-homes a caller's Decimal in the exact constructor. Constructing copies the digits without
 * rounding; operating on the caller's own instance would round to ITS constructor's precision
 * (20 digits for the default Decimal).
 */
export function exact(value: Decimal.Value): Decimal {
  return new ExactDecimal(value);
}

/**
 * Hands a value back as a default-constructor Decimal (digits unchanged), so a caller's further
 * arithmetic runs at its usual precision rather than the engine's 1000 digits.
 */
export function toPublic(value: Decimal): Decimal {
  return new Decimal(value);
}

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
  const n = exact(numerator);
  const d = exact(denominator);
  const unit = new ExactDecimal(`1e-${places}`);
  const scaled = n.div(unit); // a shift of the exponent, exact
  const truncated = scaled.divToInt(d); // toward zero
  const floored = truncated.times(d).gt(scaled) ? truncated.minus(1) : truncated;
  return floored.times(unit);
}

/** The smallest multiple of 10^-places that is ≥ numerator / denominator. Exact, like floorRatio. */
export function ceilRatio(numerator: Decimal, denominator: Decimal, places: number): Decimal {
  assertRatioOperands(numerator, denominator, places);
  return floorRatio(exact(numerator).neg(), denominator, places).neg();
}

/**
 * numerator / denominator truncated toward zero to RATIO_SIGNIFICANT_DIGITS significant digits
 * (decimal.js division keeps the remainder, so the truncation is correct, not double-rounded).
 */
export function ratioToSignificantDigits(numerator: Decimal, denominator: Decimal): Decimal {
  return new RatioDecimal(numerator).div(new RatioDecimal(denominator));
}
