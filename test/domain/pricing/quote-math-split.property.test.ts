import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pairArb, scaled } from '../../helpers/pricing-arbitraries.js';
import { Decimal, type DecimalValue } from '../../../src/domain/money.js';
import fc from 'fast-check';
import { ceilRatio, floorRatio, ratioToSignificantDigits } from '../../../src/domain/pricing/exact-decimal.js';
import type { CurrencyTerms, PairPricing, QuoteResult } from '../../../src/domain/pricing/index.js';
import { BPS_PER_UNIT, offerPair, pairLimits, quoteAmount, quoteOffered, totalFeeBps } from '../../../src/domain/pricing/index.js';

const RUNS = 300;

// ---------------------------------------------------------------------------------------------
// The engine as it was before the per-pair / per-amount split, verbatim but for names: the split
// must give bit-for-bit the same results, so the reference is the old code, not the new one.
// It is also the decimal reference of the per-amount half, which now runs on scaled bigints
// (issue 18): same amounts, rates and exact rates, over random prices, fees, decimals and amounts.
// The old code moved values between the 1000-digit engine constructor and the default one
// (`exact`, `toPublic`); with one exact constructor for all money both copy the digits as they are.
const exact = (value: DecimalValue): Decimal => new Decimal(value);
const toPublic = (value: Decimal): Decimal => new Decimal(value);

function legacyOffered(p: PairPricing) {
  const bps = totalFeeBps(p);
  const usable = (price: Decimal) => price.isFinite() && price.gt(0);
  if (!usable(p.priceFromUsd) || !usable(p.priceToUsd) || bps >= BPS_PER_UNIT) return undefined;
  const c = {
    perUnit: exact(p.priceFromUsd).times(BPS_PER_UNIT - bps),
    scale: exact(p.priceToUsd).times(BPS_PER_UNIT),
    payoutFee: exact(p.to.payoutFee),
  };
  const back = (amountTo: Decimal) => exact(amountTo).plus(c.payoutFee).times(c.scale);
  const one = exact(1);
  const minFromSource = ceilRatio(p.from.minAmount, one, p.from.decimals);
  const minFromDestination = ceilRatio(back(p.to.minAmount), c.perUnit, p.from.decimals);
  const minAmount = minFromSource.gt(minFromDestination) ? minFromSource : minFromDestination;
  const maxFromSource = floorRatio(p.from.maxAmount, one, p.from.decimals);
  const maxFromDestination = floorRatio(back(p.to.maxAmount), c.perUnit, p.from.decimals);
  const maxAmount = maxFromSource.lt(maxFromDestination) ? maxFromSource : maxFromDestination;
  if (minAmount.gt(maxAmount)) return undefined;
  const net = (x: Decimal) => exact(x).times(c.perUnit).minus(c.payoutFee.times(c.scale));
  if (!floorRatio(net(minAmount), c.scale, p.to.decimals).gt(0)) return undefined;
  return { c, net, minAmount, maxAmount };
}

function legacyQuoteAmount(p: PairPricing, amountFrom: Decimal): QuoteResult {
  const offered = legacyOffered(p);
  if (offered === undefined) return { ok: false, reason: 'pair_unavailable' };
  if (amountFrom.decimalPlaces() > p.from.decimals) {
    return { ok: false, reason: 'too_many_decimals', decimals: p.from.decimals };
  }
  const minAmount = toPublic(offered.minAmount);
  const maxAmount = toPublic(offered.maxAmount);
  if (amountFrom.lt(offered.minAmount)) return { ok: false, reason: 'below_min', minAmount, maxAmount };
  if (amountFrom.gt(offered.maxAmount)) return { ok: false, reason: 'above_max', minAmount, maxAmount };
  const numerator = offered.net(amountFrom);
  const rateDenominator = offered.c.scale.times(exact(amountFrom));
  return {
    ok: true,
    rate: toPublic(floorRatio(numerator, rateDenominator, p.to.decimals)),
    exactRate: toPublic(ratioToSignificantDigits(numerator, rateDenominator)),
    amountTo: toPublic(floorRatio(numerator, offered.c.scale, p.to.decimals)),
    minAmount,
    maxAmount,
  };
}

// ---------------------------------------------------------------------------------------------
// Generators (test/helpers/pricing-arbitraries.ts): mostly offered pairs, with zero
// prices, fees reaching 10 000 bps and crossed limits mixed in for the unavailable outcomes.

const pairs = pairArb({ unavailable: true, crossedLimits: true });

/** Amounts around the pair's limits (one unit either side, both ends, inside) and arbitrary ones, some with too many decimals. */
function amountsFor(p: PairPricing, seeds: readonly { units: bigint; scale: number }[]): Decimal[] {
  const Wide = Decimal.clone({ precision: 500 });
  const amounts = seeds.map(({ units, scale }) => scaled(units, scale));
  const limits = pairLimits(p);
  if (limits.ok) {
    const ulp = new Wide(`1e-${p.from.decimals}`);
    const min = new Wide(limits.minAmount);
    const max = new Wide(limits.maxAmount);
    const middle = min.plus(max).div(2).toDecimalPlaces(p.from.decimals, Decimal.ROUND_DOWN);
    for (const x of [min, max, min.minus(ulp), max.plus(ulp), middle]) amounts.push(new Decimal(x));
    amounts.push(new Decimal(min.plus(new Wide(`1e-${p.from.decimals + 1}`)))); // one decimal too many
  }
  amounts.push(p.from.minAmount);
  return amounts;
}

const seedsArb = fc.array(
  fc.record({ units: fc.bigInt(0n, 10n ** 24n), scale: fc.integer({ min: 0, max: 22 }) }),
  { maxLength: 6 },
);

void describe('quote-math split: offerPair once, quoteOffered per amount', () => {
  void it('gives exactly the pre-split results, for one offered pair reused across many amounts', () => {
    fc.assert(
      fc.property(pairs, seedsArb, (p, seeds) => {
        const offered = offerPair(p);
        assert.equal(offered.ok, legacyOffered(p) !== undefined);
        assert.ok(Object.isFrozen(offered));
        for (const amount of amountsFor(p, seeds)) {
          const expected = legacyQuoteAmount(p, amount);
          assert.deepStrictEqual(quoteOffered(offered, amount), expected, `amount ${amount.toFixed()}`);
          assert.deepStrictEqual(quoteAmount(p, amount), expected, `amount ${amount.toFixed()}`);
        }
        const legacy = legacyOffered(p);
        assert.deepStrictEqual(
          pairLimits(p),
          legacy === undefined
            ? { ok: false, reason: 'pair_unavailable' }
            : { ok: true, minAmount: toPublic(legacy.minAmount), maxAmount: toPublic(legacy.maxAmount) },
        );
      }),
      { numRuns: RUNS },
    );
  });

  void it('quoteAmount still reports a non-finite amount before malformed pricing; offerPair reports the pricing', () => {
    const terms: CurrencyTerms = {
      coin: 'c',
      network: 'n',
      decimals: 8,
      minAmount: new Decimal(1),
      maxAmount: new Decimal(2),
      payoutFee: new Decimal(0),
    };
    const malformed: PairPricing = {
      from: terms,
      to: terms,
      priceFromUsd: new Decimal(1),
      priceToUsd: new Decimal(1),
      rateType: 'float',
      markupBps: -1,
      settings: { spreadBps: 0, fixedPremiumBps: 0 },
    };
    assert.throws(() => quoteAmount(malformed, new Decimal(NaN)), {
      name: 'RangeError',
      message: 'amountFrom must be a finite decimal, got NaN',
    });
    assert.throws(() => quoteAmount(malformed, new Decimal(1)), { name: 'RangeError', message: /markupBps/ });
    assert.throws(() => offerPair(malformed), { name: 'RangeError', message: /markupBps/ });
    const wellFormed = { ...malformed, markupBps: 0 };
    const offered = offerPair(wellFormed);
    assert.throws(() => quoteOffered(offered, new Decimal(Infinity)), { name: 'RangeError', message: /finite/ });
    assert.deepStrictEqual(quoteOffered(offered, new Decimal('1.5')), legacyQuoteAmount(wellFormed, new Decimal('1.5')));
  });
});
