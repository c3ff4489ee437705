import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pairArb, scaled } from '../../helpers/pricing-arbitraries.js';
import fc from 'fast-check';
import { Decimal } from '../../../src/domain/money.js';
import type { PairPricing, QuoteResult } from '../../../src/domain/pricing/index.js';
import { offerPair, quoteAmount, quoteAmountTo } from '../../../src/domain/pricing/index.js';
import { quoteRow, tableQuote, tableQuoteTo } from '../../../src/domain/pricing/quote-table.js';

/**
 * The quote table (docs/adr/0058-quote-tables.md) against today's exact quote: for random pairs
 * (prices, decimals, limits, payout fees), fees and markups, both rate types, amounts around and
 * between the limits (and with too many decimals) and reverse quotes by amount_to, the row's
 * quote is quoteAmount's / quoteAmountTo's, every field equal (the exact rate included).
 */

const RUNS = 400;

const pairs = pairArb({ unavailable: true });

/** A fraction in [0, 1] as parts per million, to place amounts between two limits. */
const placesArb = fc.array(fc.integer({ min: 0, max: 1_000_000 }), { minLength: 1, maxLength: 6 });

/** Every field. */
const plain = (result: QuoteResult): Record<string, unknown> => ({ ...result });

/** Amounts at `decimals` places between `min` and `max` (by `places`), one unit either side of both, and one decimal too many. */
function amountsBetween(min: Decimal, max: Decimal, decimals: number, places: readonly number[]): Decimal[] {
  const ulp = new Decimal(`1e-${decimals}`);
  const span = max.minus(min);
  return [
    min,
    max,
    min.minus(ulp),
    max.plus(ulp),
    min.plus(new Decimal(`1e-${decimals + 1}`)),
    ...places.map((ppm) => min.plus(span.times(ppm).div(1_000_000)).toDecimalPlaces(decimals, Decimal.ROUND_DOWN)),
  ].filter((amount) => amount.gte(0));
}

describe('quote table: the same quote as the exact engine', () => {
  it('by amount (coin_from), every outcome', () => {
    let priced = 0;
    fc.assert(
      fc.property(pairs, placesArb, fc.bigInt(0n, 10n ** 12n), (p, places, any) => {
        const row = quoteRow(p);
        const offered = offerPair(p);
        const amounts = [scaled(any, p.from.decimals), p.from.minAmount];
        if (offered.ok) amounts.push(...amountsBetween(offered.minAmount, offered.maxAmount, p.from.decimals, places));
        for (const amount of amounts) {
          const quote = tableQuote(row, amount);
          if (quote.ok) priced++;
          assert.deepStrictEqual(plain(quote), plain(quoteAmount(p, amount)), amount.toFixed());
        }
      }),
      { numRuns: RUNS },
    );
    // Most runs price something: the comparison is of quotes, not only of refusals.
    assert.ok(priced > RUNS, `${priced} quotes priced`);
  });

  it('by amount_to (reverse), every outcome', () => {
    let priced = 0;
    fc.assert(
      fc.property(pairs, placesArb, fc.bigInt(0n, 10n ** 12n), (p, places, any) => {
        const row = quoteRow(p);
        const offered = offerPair(p);
        const amounts = [scaled(any, p.to.decimals)];
        if (offered.ok) amounts.push(...amountsBetween(offered.minAmountTo, offered.maxAmountTo, p.to.decimals, places));
        for (const amountTo of amounts) {
          const quote = tableQuoteTo(row, amountTo);
          if (quote.ok) priced++;
          assert.deepStrictEqual(plain(quote), plain(quoteAmountTo(p, amountTo)), amountTo.toFixed());
        }
      }),
      { numRuns: RUNS },
    );
    assert.ok(priced > RUNS, `${priced} quotes priced`);
  });

  it('a non-finite amount is a bug upstream, as in the engine', () => {
    const p: PairPricing = {
      from: { coin: 'a', network: 'a', decimals: 8, minAmount: new Decimal('0.001'), maxAmount: new Decimal('10'), payoutFee: new Decimal(0) },
      to: { coin: 'b', network: 'b', decimals: 6, minAmount: new Decimal('1'), maxAmount: new Decimal('100000'), payoutFee: new Decimal('0.5') },
      priceFromUsd: new Decimal('60000'),
      priceToUsd: new Decimal('1'),
      rateType: 'float',
      markupBps: 0,
      settings: { spreadBps: 50, fixedPremiumBps: 0 },
    };
    assert.throws(() => tableQuote(quoteRow(p), new Decimal(NaN)), RangeError);
    assert.throws(() => tableQuoteTo(quoteRow(p), new Decimal(Infinity)), RangeError);
  });
});
