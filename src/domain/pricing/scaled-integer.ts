import { Decimal } from '../money.js';
import { RATIO_SIGNIFICANT_DIGITS } from './exact-decimal.js';

/**
 * Exact arithmetic on scaled integers for the per-amount half of a quote: a value is
 * `units / 10^scale` with `units` a bigint, so products, sums and floors are integer operations
 * with no precision to run out of, and far cheaper than decimal.js at 1000 digits. Only what the
 * quote needs: conversion to and from Decimal, floor and ceiling quotients, and a quotient cut
 * to RATIO_SIGNIFICANT_DIGITS significant digits toward zero.
 */
export interface Scaled {
  units: bigint;
  scale: number;
}

const POWERS: bigint[] = [1n];

/** 10^n as a bigint (n ≥ 0), memoised: quotes use a few dozen exponents over and over. */
export function pow10(n: number): bigint {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`pow10 needs a non-negative integer, got ${n}`);
  for (let next = POWERS.length; next <= n; next++) POWERS.push((POWERS[next - 1] ?? 1n) * 10n);
  return POWERS[n] ?? 1n;
}

/** A finite Decimal as units / 10^scale, scale being its decimal places (exact). */
export function toScaled(value: Decimal): Scaled {
  if (!value.isFinite()) throw new RangeError(`a scaled integer needs a finite value, got ${value.toString()}`);
  const scale = value.decimalPlaces();
  return { units: BigInt(value.toFixed(scale).replace('.', '')), scale };
}

/** `value` × 10^scale as a bigint; `value` must have at most `scale` decimal places. */
export function unitsAt(value: Decimal, scale: number): bigint {
  const { units, scale: own } = toScaled(value);
  if (own > scale) throw new RangeError(`${value.toFixed()} has more than ${scale} decimal places`);
  return units * pow10(scale - own);
}

/** units / 10^scale as a Decimal (exact). */
export function fromScaled(units: bigint, scale: number): Decimal {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString();
  if (scale === 0) return new Decimal(negative ? `-${digits}` : digits);
  const padded = digits.padStart(scale + 1, '0');
  const text = `${padded.slice(0, -scale)}.${padded.slice(-scale)}`;
  return new Decimal(negative ? `-${text}` : text);
}

/** ⌊n / d⌋ for d > 0 (bigint division truncates toward zero; this floors negatives too). */
export function floorDiv(n: bigint, d: bigint): bigint {
  const q = n / d;
  return n % d !== 0n && n < 0n ? q - 1n : q;
}

/** ⌈n / d⌉ for d > 0. */
export function ceilDiv(n: bigint, d: bigint): bigint {
  return -floorDiv(-n, d);
}

/**
 * n / d for n, d > 0, cut toward zero to RATIO_SIGNIFICANT_DIGITS significant digits, as a
 * Decimal: the same value as ratioToSignificantDigits (exact-decimal.ts) for the same ratio.
 */
export function significantQuotient(n: bigint, d: bigint): Decimal {
  if (n <= 0n || d <= 0n) throw new RangeError('significantQuotient needs a positive numerator and denominator');
  // The quotient has about digits(n) − digits(d) (+1) integer digits; k decimal places then
  // leave RATIO_SIGNIFICANT_DIGITS give or take one. A longer q is cut exactly by moving k down
  // (⌊⌊x⌋ / 10^j⌋ = ⌊x / 10^j⌋); a shorter one cannot overshoot when k moves up.
  let k = RATIO_SIGNIFICANT_DIGITS - (n.toString().length - d.toString().length) - 1;
  for (;;) {
    const q = k >= 0 ? (n * pow10(k)) / d : n / (d * pow10(-k));
    const length = q === 0n ? 0 : q.toString().length;
    if (length === RATIO_SIGNIFICANT_DIGITS) return k >= 0 ? fromScaled(q, k) : fromScaled(q * pow10(-k), 0);
    k += RATIO_SIGNIFICANT_DIGITS - length;
  }
}
