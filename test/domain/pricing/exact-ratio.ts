// Independent exact reference for the money properties: rationals over BigInt, so the engine's
// Decimal arithmetic is checked against arithmetic that cannot round at all.
import type { Decimal } from '../../../src/domain/money.js';
import { totalFeeBps, type PairPricing } from '../../../src/domain/pricing/index.js';

export interface Ratio {
  n: bigint;
  d: bigint; // > 0
}

export function ratioOf(x: Decimal): Ratio {
  const text = x.toFixed();
  const negative = text.startsWith('-');
  const [whole = '0', fraction = ''] = text.replace('-', '').split('.');
  const n = BigInt(whole + fraction);
  return { n: negative ? -n : n, d: 10n ** BigInt(fraction.length) };
}
export const mul = (a: Ratio, b: Ratio): Ratio => ({ n: a.n * b.n, d: a.d * b.d });
export const sub = (a: Ratio, b: Ratio): Ratio => ({ n: a.n * b.d - b.n * a.d, d: a.d * b.d });
export const div = (a: Ratio, b: Ratio): Ratio => (b.n > 0n ? { n: a.n * b.d, d: a.d * b.n } : { n: -a.n * b.d, d: a.d * -b.n });
export const cmp = (a: Ratio, b: Ratio): number => {
  const diff = a.n * b.d - b.n * a.d;
  return diff > 0n ? 1 : diff < 0n ? -1 : 0;
};
export const unit = (places: number): Ratio => ({ n: 1n, d: 10n ** BigInt(places) });

/** The largest multiple of 10^-places that is ≤ r, as plain decimal text (toFixed's spelling). */
export function floorText(r: Ratio, places: number): string {
  const scaledN = r.n * 10n ** BigInt(places);
  let q = scaledN / r.d; // toward zero
  if (q * r.d > scaledN) q -= 1n; // floor for negatives
  const negative = q < 0n;
  const digits = (negative ? -q : q).toString().padStart(places + 1, '0');
  const whole = digits.slice(0, digits.length - places);
  const fraction = digits.slice(digits.length - places).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction.length > 0 ? `.${fraction}` : ''}`;
}

/** amountFrom × (priceFrom / priceTo) × (1 − bps/10000) − payoutFee, exactly. */
export function exactAmountTo(p: PairPricing, amountFrom: Decimal): Ratio {
  const market = div(ratioOf(p.priceFromUsd), ratioOf(p.priceToUsd));
  const feeFactor = { n: BigInt(10_000 - totalFeeBps(p)), d: 10_000n };
  return sub(mul(mul(ratioOf(amountFrom), market), feeFactor), ratioOf(p.to.payoutFee));
}
