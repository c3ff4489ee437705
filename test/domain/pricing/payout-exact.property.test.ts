// Every payout is the exact value rounded DOWN to the destination's decimals, never moved by an
// unseen rounding (issue: a fixed 3.5 ETH order paid one unit of the 18th decimal too much when
// the product went through decimal.js's default 20-digit, half-up constructor).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Decimal } from '../../../src/domain/money.js';
import { fixedRatePayout, pairLimits, quoteAmount, type PairPricing } from '../../../src/domain/pricing/index.js';
import { exactAmountTo, floorText, mul, ratioOf } from './exact-ratio.js';

const RUNS = 500;
const scaled = (units: bigint, scale: number) => new Decimal(`${units}e-${scale}`);

/** Up to 20 integer and 18 fractional digits: what numeric(38, 18) holds. */
const receivedArb = fc
  .tuple(fc.bigInt(1n, 10n ** 38n - 1n), fc.integer({ min: 0, max: 18 }))
  .map(([units, scale]) => scaled(units, scale))
  .filter((value) => value.lt('1e20'));
/** An exact rate as orders store it: up to 40 significant digits, from 1e-30 to 1e10. */
const rateArb = fc
  .tuple(fc.integer({ min: 1, max: 40 }), fc.bigInt(1n, 10n ** 40n - 1n), fc.integer({ min: 0, max: 40 }))
  .map(([digits, units, scale]) => scaled(BigInt(units.toString().slice(0, digits)), scale));
const decimalsArb = fc.integer({ min: 0, max: 18 });

describe('payouts are the exact value rounded down', () => {
  it('fixed: received × the locked exact rate, floored to coin_to decimals', () => {
    fc.assert(
      fc.property(receivedArb, rateArb, decimalsArb, (received, rate, decimals) => {
        const payout = fixedRatePayout(received, rate, decimals);
        assert.equal(payout.toFixed(), floorText(mul(ratioOf(received), ratioOf(rate)), decimals));
      }),
      { numRuns: RUNS },
    );
  });

  it('fixed: 3.5 ETH at a 40-digit rate is the floor of the exact product (the default constructor paid one unit more)', () => {
    const received = new Decimal('3.5');
    const rate = new Decimal('17.31563459812347659912345678901234567891');
    const exactFloor = floorText(mul(ratioOf(received), ratioOf(rate)), 18);
    assert.equal(fixedRatePayout(received, rate, 18).toFixed(), exactFloor);
    assert.equal(exactFloor, '60.604721093432168096');
    // What the old code computed: a 20-digit, half-up product, then the floor.
    const Default = Decimal.clone({ precision: 20, rounding: Decimal.ROUND_HALF_UP });
    const old = new Default(received).times(new Default(rate)).toDecimalPlaces(18, Decimal.ROUND_DOWN);
    assert.equal(old.toFixed(), '60.604721093432168097');
  });

  it('float: the quoted amount_to (what the worker pays at the exchange moment) is the exact net value, floored', () => {
    const priceArb = fc
      .tuple(fc.bigInt(1n, 10n ** 30n), fc.integer({ min: 0, max: 30 }))
      .map(([units, scale]) => scaled(units, scale))
      .filter((price) => price.gt('1e-8') && price.lt('1e9'));
    const pairArb = fc.record({
      priceFromUsd: priceArb,
      priceToUsd: priceArb,
      fromDecimals: decimalsArb,
      toDecimals: decimalsArb,
      feeUnits: fc.bigInt(0n, 10n ** 12n),
      markupBps: fc.integer({ min: 0, max: 500 }),
      spreadBps: fc.integer({ min: 0, max: 300 }),
      fixedPremiumBps: fc.integer({ min: 0, max: 300 }),
      rateType: fc.constantFrom('float' as const, 'fixed' as const),
      selector: fc.bigInt(0n, 2n ** 96n),
    });
    let priced = 0;
    fc.assert(
      fc.property(pairArb, (g) => {
        const p: PairPricing = {
          from: { coin: 'a', network: 'a', decimals: g.fromDecimals, minAmount: new Decimal(0), maxAmount: new Decimal('1e15'), payoutFee: new Decimal(0) },
          to: { coin: 'b', network: 'b', decimals: g.toDecimals, minAmount: new Decimal(0), maxAmount: new Decimal('1e15'), payoutFee: scaled(g.feeUnits, g.toDecimals) },
          priceFromUsd: g.priceFromUsd,
          priceToUsd: g.priceToUsd,
          rateType: g.rateType,
          markupBps: g.markupBps,
          settings: { spreadBps: g.spreadBps, fixedPremiumBps: g.fixedPremiumBps },
        };
        const limits = pairLimits(p);
        if (!limits.ok) return;
        const step = new Decimal(`1e-${g.fromDecimals}`);
        const span = BigInt(limits.maxAmount.minus(limits.minAmount).div(step).toFixed()) + 1n;
        const amountFrom = limits.minAmount.plus(step.times((g.selector % span).toString()));
        const quote = quoteAmount(p, amountFrom);
        assert.equal(quote.ok, true, `an amount within the limits must quote: ${amountFrom.toFixed()}`);
        if (!quote.ok) return;
        priced += 1;
        assert.equal(quote.amountTo.toFixed(), floorText(exactAmountTo(p, amountFrom), g.toDecimals));
      }),
      { numRuns: RUNS },
    );
    // The generator must not turn the property into one that checks nothing.
    assert.ok(priced >= RUNS / 4, `only ${priced} of ${RUNS} generated pairs priced an amount`);
  });
});
