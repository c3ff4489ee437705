import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pairArb, scaled } from '../../helpers/pricing-arbitraries.js';
import { Decimal } from '../../../src/domain/money.js';
import fc from 'fast-check';
import type { PairPricing, Quote } from '../../../src/domain/pricing/index.js';
import { pairLimits, quoteAmount } from '../../../src/domain/pricing/index.js';
import { cmp, div, exactAmountTo, ratioOf, sub, unit } from './exact-ratio.js';

const RUNS = 300;

// ---------------------------------------------------------------------------------------------
// Generators: ordinary pairs (test/helpers/pricing-arbitraries.ts), and amounts within their limits.


/**
 * For the tests' own arithmetic on engine outputs: decimal.js's default constructor would round
 * every result to 20 significant digits, moving an amount like 228795930854.873157764 off its
 * limit. (The money module's constructor is exact; this one keeps the test independent of it.)
 */
const Wide = Decimal.clone({ precision: 500 });
const wide = (x: Decimal) => new Wide(x);
const step = (decimals: number) => new Wide(`1e-${decimals}`);

const pairs = pairArb();

/** Picks an amount in [min, max] with coin_from decimals from an arbitrary selector. */
function amountWithin(min: Decimal, max: Decimal, decimals: number, selector: bigint): Decimal {
  const ulps = wide(max).minus(min).div(step(decimals));
  const span = BigInt(ulps.toFixed()) + 1n;
  return wide(min).plus(scaled(selector % span, decimals));
}
// Biased towards the edges, where rounding bugs live.
const selectorArb = fc.oneof(fc.constant(0n), fc.constant(-1n), fc.bigInt(0n, 2n ** 128n));
function pick(min: Decimal, max: Decimal, decimals: number, selector: bigint): Decimal {
  return selector === -1n ? max : amountWithin(min, max, decimals, selector);
}

function expectQuote(p: PairPricing, amountFrom: Decimal): Quote {
  const q = quoteAmount(p, amountFrom);
  assert.equal(q.ok, true, `amount ${amountFrom.toFixed()} within limits must quote, got ${JSON.stringify(q)}`);
  if (!q.ok) throw new Error('unreachable');
  return q;
}

/**
 * Runs `check` on every generated pair that is offered and fails if too few were, so that a
 * generator change cannot silently turn a property into one that checks nothing.
 */
function assertOnOfferedPairs<T extends unknown[]>(
  extra: { [K in keyof T]: fc.Arbitrary<T[K]> },
  check: (p: PairPricing, min: Decimal, max: Decimal, ...rest: T) => void,
): void {
  let offered = 0;
  fc.assert(
    fc.property(pairs, ...extra, (p: PairPricing, ...rest: T) => {
      const limits = pairLimits(p);
      if (!limits.ok) return;
      offered += 1;
      check(p, limits.minAmount, limits.maxAmount, ...rest);
    }),
    { numRuns: RUNS },
  );
  assert.ok(offered >= RUNS / 4, `only ${offered} of ${RUNS} generated pairs were offered`);
}

describe('quoteAmount properties', () => {
  it('amount_to ≤ exact value, within one unit of its last decimal, with ≤ coin_to decimals and > 0', () => {
    assertOnOfferedPairs([selectorArb], (p, min, max, selector) => {
      const amountFrom = pick(min, max, p.from.decimals, selector);
      const q = expectQuote(p, amountFrom);
      const exact = exactAmountTo(p, amountFrom);
      const amountTo = ratioOf(q.amountTo);
      assert.ok(cmp(amountTo, exact) <= 0, 'amount_to exceeds the exact value');
      assert.ok(cmp(sub(exact, amountTo), unit(p.to.decimals)) < 0, 'amount_to is a full unit short');
      assert.ok(q.amountTo.decimalPlaces() <= p.to.decimals);
      assert.ok(q.amountTo.gt(0));
    });
  });

  it('rate is the exact net rate rounded down to coin_to decimals; exactRate is 40 digits of it', () => {
    assertOnOfferedPairs([selectorArb], (p, min, max, selector) => {
      const amountFrom = pick(min, max, p.from.decimals, selector);
      const q = expectQuote(p, amountFrom);
      const exactRate = div(exactAmountTo(p, amountFrom), ratioOf(amountFrom));
      assert.ok(q.rate.decimalPlaces() <= p.to.decimals);
      assert.ok(cmp(ratioOf(q.rate), exactRate) <= 0, 'published rate exceeds the exact rate');
      assert.ok(cmp(sub(exactRate, ratioOf(q.rate)), unit(p.to.decimals)) < 0, 'published rate a full unit short');
      assert.ok(q.exactRate.precision() <= 40);
      assert.ok(cmp(ratioOf(q.exactRate), exactRate) <= 0, 'exactRate exceeds the exact rate');
      // Truncated to 40 significant digits: short by less than one unit of the 40th digit.
      const lastDigit = new Decimal(10).pow(q.exactRate.e - 39);
      assert.ok(cmp(sub(exactRate, ratioOf(q.exactRate)), ratioOf(lastDigit)) < 0, 'exactRate lost more than 40 digits');
      // amount_to comes from the exact value, so it is never below amountFrom × rate rounded down.
      assert.ok(wide(amountFrom).times(q.rate).toDecimalPlaces(p.to.decimals, Decimal.ROUND_DOWN).lte(q.amountTo));
    });
  });

  it('amount_to is non-decreasing in the amount', () => {
    assertOnOfferedPairs([selectorArb, selectorArb], (p, min, max, s1, s2) => {
      const a = pick(min, max, p.from.decimals, s1);
      const b = pick(min, max, p.from.decimals, s2);
      const [low, high] = a.lte(b) ? [a, b] : [b, a];
      assert.ok(expectQuote(p, low).amountTo.lte(expectQuote(p, high).amountTo));
    });
  });

  it('amount_to is non-increasing in the markup', () => {
    let compared = 0;
    assertOnOfferedPairs([selectorArb, fc.integer({ min: 0, max: 500 })], (p, min, max, selector, extraBps) => {
      const amountFrom = pick(min, max, p.from.decimals, selector);
      const lower = expectQuote(p, amountFrom);
      // A higher markup raises the minimum, so the same amount may fall out of range: compare
      // only where both quote.
      const higher = quoteAmount({ ...p, markupBps: p.markupBps + extraBps }, amountFrom);
      if (!higher.ok) return;
      compared += 1;
      assert.ok(higher.amountTo.lte(lower.amountTo));
    });
    assert.ok(compared >= RUNS / 8, `only ${compared} markup pairs compared`);
  });
});

describe('pairLimits properties', () => {
  it('offered limits are ordered, carry coin_from decimals and respect the source limits', () => {
    assertOnOfferedPairs([], (p, min, max) => {
      assert.ok(min.lte(max));
      assert.ok(min.gt(0));
      assert.ok(min.decimalPlaces() <= p.from.decimals && max.decimalPlaces() <= p.from.decimals);
      assert.ok(min.gte(p.from.minAmount));
      assert.ok(max.lte(p.from.maxAmount));
    });
  });

  it('the destination limits hold at both ends, and neither end could be widened by one unit', () => {
    assertOnOfferedPairs([], (p, min, max) => {
      const atLeastDestMin = (amount: Decimal) => cmp(exactAmountTo(p, amount), ratioOf(p.to.minAmount)) >= 0;
      const atMostDestMax = (amount: Decimal) => cmp(exactAmountTo(p, amount), ratioOf(p.to.maxAmount)) <= 0;
      assert.ok(atLeastDestMin(min) && atMostDestMax(max));
      const belowMin = wide(min).minus(step(p.from.decimals));
      assert.ok(belowMin.lt(p.from.minAmount) || !atLeastDestMin(belowMin), 'min is not the smallest');
      const aboveMax = wide(max).plus(step(p.from.decimals));
      assert.ok(aboveMax.gt(p.from.maxAmount) || !atMostDestMax(aboveMax), 'max is not the largest');
    });
  });

  it('amounts one unit outside the limits are refused with the limits', () => {
    assertOnOfferedPairs([], (p, min, max) => {
      const below = quoteAmount(p, wide(min).minus(step(p.from.decimals)));
      const above = quoteAmount(p, wide(max).plus(step(p.from.decimals)));
      assert.deepEqual(below, { ok: false, reason: 'below_min', minAmount: min, maxAmount: max });
      assert.deepEqual(above, { ok: false, reason: 'above_max', minAmount: min, maxAmount: max });
    });
  });
});
