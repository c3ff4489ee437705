import { Decimal } from '../domain/money.js';
import { isLosslessNumber } from 'lossless-json';
import type { PriceObservation } from './price-source.js';

/**
 * Unsigned decimal, optionally with an exponent. Checked before `new Decimal()` because Decimal
 * also accepts '-1', 'NaN', 'Infinity' and hex/binary literals ('0x10'), none of which is a price.
 */
const UNSIGNED_DECIMAL = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d{1,6})?$/;

/** Longer numeric text than this is not something a market-data feed sends. */
const MAX_NUMERIC_TEXT_LENGTH = 64;

/**
 * Bounds (USD per unit, exclusive) outside which a price is treated as absurd and dropped. Every
 * asset quoted here sits between about 0.05 and 200 000 USD; the bounds only catch unit mix-ups
 * (satoshis, wei) and garbage, the aggregator's deviation check catches subtler errors.
 */
export const MIN_PLAUSIBLE_PRICE_USD = new Decimal('1e-8');
export const MAX_PLAUSIBLE_PRICE_USD = new Decimal('1e8');

/**
 * A strictly positive decimal from a feed value: a JSON string, or a number literal kept exact by
 * lossless-json. Anything else (missing, null, boolean, non-numeric text, zero, negative) gives
 * undefined, so the caller drops that entry.
 */
export function positiveDecimalFromFeed(value: unknown): Decimal | undefined {
  let text: string;
  if (typeof value === 'string') text = value.trim();
  else if (isLosslessNumber(value)) text = value.toString();
  else return undefined;
  if (text.length === 0 || text.length > MAX_NUMERIC_TEXT_LENGTH || !UNSIGNED_DECIMAL.test(text)) {
    return undefined;
  }
  const parsed = new Decimal(text);
  return parsed.isFinite() && parsed.gt(0) ? parsed : undefined;
}

/** Whether a value is a Decimal strictly inside the plausible band. Accepts anything, for untrusted sources. */
export function isPlausiblePriceUsd(price: unknown): boolean {
  return (
    Decimal.isDecimal(price) &&
    price.isFinite() &&
    price.gt(MIN_PLAUSIBLE_PRICE_USD) &&
    price.lt(MAX_PLAUSIBLE_PRICE_USD)
  );
}

/**
 * Whether an observation from any source (including ones this module did not write, or a buggy
 * one handing over null) is safe to keep: a real Decimal within the plausible band, a valid date,
 * a non-empty symbol.
 */
export function isUsableObservation(value: unknown): value is PriceObservation {
  if (typeof value !== 'object' || value === null) return false;
  const observation = value as Partial<Record<keyof PriceObservation, unknown>>;
  return (
    typeof observation.symbol === 'string' &&
    observation.symbol.length > 0 &&
    isPlausiblePriceUsd(observation.priceUsd) &&
    observation.observedAt instanceof Date &&
    Number.isFinite(observation.observedAt.getTime())
  );
}
