/**
 * Pairs to price, for the pricing property tests (test/domain/pricing). Decimals come from
 * integers scaled by powers of ten, never from floats. Limits and payout fees are drawn in USD
 * and converted at the drawn price, as an operator would set them, so that a good share of pairs
 * is offered and the properties are not vacuous.
 */
import fc from 'fast-check';
import { Decimal, type Rounding } from '../../src/domain/money.js';
import type { CurrencyTerms, PairPricing } from '../../src/domain/pricing/index.js';

/** `units` × 10^-`scale`, exactly. */
export const scaled = (units: bigint, scale: number): Decimal => new Decimal(`${units}e-${scale}`);

/** What a test wants beside ordinary pairs: the cases where a pair is not offered. */
export interface PairOptions {
  /**
   * Prices of zero now and then (one in eleven; a long price one in five, else one in two), and a
   * markup high enough for the fees to reach 10 000 bps one time in ten.
   */
  unavailable?: boolean;
  /** One currency in ten with its minimum and maximum swapped. */
  crossedLimits?: boolean;
}

/** USD price from 1e-8 to 1e9, sometimes with up to 30 significant digits; with `zero`, sometimes zero. */
function priceArb(zero: boolean): fc.Arbitrary<Decimal> {
  const short = fc.tuple(fc.bigInt(1n, 10n ** 9n), fc.integer({ min: 0, max: 8 }));
  const long = fc.tuple(fc.bigInt(10n ** 20n, 10n ** 30n), fc.integer({ min: 21, max: 29 }));
  const drawn = zero
    ? fc.oneof({ weight: 8, arbitrary: short }, { weight: 2, arbitrary: long }, { weight: 1, arbitrary: fc.constant<[bigint, number]>([0n, 0]) })
    : fc.oneof(short, long);
  return drawn.map(([units, scale]) => scaled(units, scale));
}

const usdArb = (max: bigint) => fc.bigInt(0n, max).map((cents) => scaled(cents, 2));

function currencyArb(price: Decimal, crossedLimits: boolean): fc.Arbitrary<CurrencyTerms> {
  return fc
    .record({
      decimals: fc.integer({ min: 0, max: 18 }),
      minUsd: usdArb(100_000n), // up to $1 000
      spanUsd: usdArb(10_000_000_000n), // up to $100 000 000 above the minimum
      feeUsd: usdArb(5_000n), // up to $50
      crossed: crossedLimits ? fc.integer({ min: 0, max: 9 }).map((n) => n === 0) : fc.constant(false),
    })
    .map(({ decimals, minUsd, spanUsd, feeUsd, crossed }) => {
      // A zero price leaves the USD figure as it is: the pair is unavailable anyway.
      const inCoin = (amountUsd: Decimal, rounding: Rounding) => (price.isZero() ? amountUsd : amountUsd.div(price)).toDecimalPlaces(decimals, rounding);
      const min = inCoin(minUsd, Decimal.ROUND_UP);
      const max = inCoin(minUsd.plus(spanUsd), Decimal.ROUND_DOWN);
      return {
        coin: 'coin',
        network: 'net',
        decimals,
        minAmount: crossed && max.gt(0) ? max : min,
        maxAmount: crossed ? min : max,
        payoutFee: inCoin(feeUsd, Decimal.ROUND_UP),
      };
    });
}

/** A pair with its prices, limits, fees, rate type, markup and operator settings. */
export function pairArb({ unavailable = false, crossedLimits = false }: PairOptions = {}): fc.Arbitrary<PairPricing> {
  const price = priceArb(unavailable);
  const markupBps = unavailable
    ? fc.oneof({ weight: 9, arbitrary: fc.integer({ min: 0, max: 500 }) }, { weight: 1, arbitrary: fc.integer({ min: 9_000, max: 10_000 }) })
    : fc.integer({ min: 0, max: 500 });
  return fc.tuple(price, price).chain(([priceFromUsd, priceToUsd]) =>
    fc.record({
      from: currencyArb(priceFromUsd, crossedLimits),
      to: currencyArb(priceToUsd, crossedLimits),
      priceFromUsd: fc.constant(priceFromUsd),
      priceToUsd: fc.constant(priceToUsd),
      rateType: fc.constantFrom('float' as const, 'fixed' as const),
      markupBps,
      settings: fc.record({ spreadBps: fc.integer({ min: 0, max: 300 }), fixedPremiumBps: fc.integer({ min: 0, max: 300 }) }),
    }),
  );
}
