import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pairArb, scaled } from '../../helpers/pricing-arbitraries.js';
import fc from 'fast-check';
import { Decimal } from '../../../src/domain/money.js';
import type { OfferedPair, PairPricing } from '../../../src/domain/pricing/index.js';
import { offerPair, quoteAmount, quoteAmountTo, quoteOfferedTo, reverseAmountFrom } from '../../../src/domain/pricing/index.js';
import { cmp, exactAmountTo, floorText, ratioOf } from './exact-ratio.js';

// Reverse quotes (docs/contract.md §7.1): the amount_from priced for an amount_to is the smallest one at
// coin_from's decimals whose payout reaches it. Checked against BigInt rationals (exact-ratio.ts),
// never against the engine's own arithmetic.

const RUNS = 400;

const step = (decimals: number) => new Decimal(`1e-${decimals}`);

const pairs = pairArb();

/** An amount_to in [min, max] at `decimals`, biased towards both ends (selector 0 and -1). */
function pickTo(min: Decimal, max: Decimal, decimals: number, selector: bigint): Decimal {
  if (selector === -1n) return max;
  const span = BigInt(max.minus(min).div(step(decimals)).toFixed()) + 1n;
  return min.plus(scaled(selector % span, decimals));
}
const selectorArb = fc.oneof(fc.constant(0n), fc.constant(-1n), fc.constant(1n), fc.bigInt(0n, 2n ** 128n));

/** The exact payout of `amountFrom`, rounded down to coin_to decimals, as a Decimal. */
const oraclePayout = (p: PairPricing, amountFrom: Decimal) => new Decimal(floorText(exactAmountTo(p, amountFrom), p.to.decimals));

function onOfferedPairs(check: (p: PairPricing, offered: OfferedPair, selector: bigint) => void): void {
  let offeredCount = 0;
  fc.assert(
    fc.property(pairs, selectorArb, (p, selector) => {
      const offered = offerPair(p);
      if (!offered.ok) return;
      offeredCount += 1;
      check(p, offered, selector);
    }),
    { numRuns: RUNS },
  );
  assert.ok(offeredCount >= RUNS / 4, `only ${offeredCount} of ${RUNS} generated pairs were offered`);
}

describe('reverse quotes: the smallest amount_from whose payout reaches amount_to', () => {
  it('the limits in coin_to are the payouts at the coin_from limits', () => {
    onOfferedPairs((p, offered) => {
      assert.equal(offered.minAmountTo.toFixed(), oraclePayout(p, offered.minAmount).toFixed());
      assert.equal(offered.maxAmountTo.toFixed(), oraclePayout(p, offered.maxAmount).toFixed());
    });
  });

  it('the payout at amount_from reaches amount_to; one unit less does not (or is below the minimum)', () => {
    let unclamped = 0;
    onOfferedPairs((p, offered, selector) => {
      const asked = pickTo(offered.minAmountTo, offered.maxAmountTo, p.to.decimals, selector);
      const reverse = reverseAmountFrom(offered, asked);
      assert.ok(reverse.ok, `amount_to ${asked.toFixed()} within the limits must quote: ${JSON.stringify(reverse)}`);
      const x = reverse.amountFrom;
      assert.ok(x.decimalPlaces() <= p.from.decimals, 'amount_from finer than coin_from');
      assert.ok(x.gte(offered.minAmount) && x.lte(offered.maxAmount), 'amount_from outside the limits');
      assert.ok(cmp(exactAmountTo(p, x), ratioOf(asked)) >= 0, 'the payout at amount_from does not reach amount_to');
      const less = x.minus(step(p.from.decimals));
      if (less.gte(offered.minAmount)) {
        unclamped += 1;
        assert.ok(oraclePayout(p, less).lt(asked), `one unit less (${less.toFixed()}) also reaches ${asked.toFixed()}`);
      }
      // The whole reverse quote is the forward quote at that amount.
      assert.deepEqual(quoteOfferedTo(offered, asked), quoteAmount(p, x));
      assert.deepEqual(quoteAmountTo(p, asked), quoteAmount(p, x));
    });
    assert.ok(unclamped >= RUNS / 8, `only ${unclamped} reverse quotes above the minimum`);
  });

  it('amount_to one unit outside the coin_to limits is refused with the coin_from limits', () => {
    onOfferedPairs((p, offered) => {
      const { minAmount, maxAmount } = offered;
      const below = offered.minAmountTo.minus(step(p.to.decimals));
      const above = offered.maxAmountTo.plus(step(p.to.decimals));
      assert.deepEqual(reverseAmountFrom(offered, below), { ok: false, reason: 'below_min', minAmount, maxAmount });
      assert.deepEqual(reverseAmountFrom(offered, above), { ok: false, reason: 'above_max', minAmount, maxAmount });
    });
  });

  it('amount_to finer than coin_to is too_many_decimals with coin_to decimals', () => {
    onOfferedPairs((p, offered) => {
      const finer = offered.minAmountTo.plus(step(p.to.decimals + 1));
      assert.deepEqual(reverseAmountFrom(offered, finer), { ok: false, reason: 'too_many_decimals', decimals: p.to.decimals });
    });
  });

  it('a pair that is not offered is pair_unavailable; a non-finite amount_to is a RangeError', () => {
    const p: PairPricing = {
      from: { coin: 'a', network: 'a', decimals: 8, minAmount: new Decimal(1), maxAmount: new Decimal(2), payoutFee: new Decimal(0) },
      to: { coin: 'b', network: 'b', decimals: 8, minAmount: new Decimal(1), maxAmount: new Decimal(2), payoutFee: new Decimal(0) },
      priceFromUsd: new Decimal(0),
      priceToUsd: new Decimal(1),
      rateType: 'float',
      markupBps: 0,
      settings: { spreadBps: 0, fixedPremiumBps: 0 },
    };
    assert.deepEqual(quoteAmountTo(p, new Decimal(1)), { ok: false, reason: 'pair_unavailable' });
    assert.throws(() => quoteAmountTo(p, new Decimal(Infinity)), RangeError);
  });
});
