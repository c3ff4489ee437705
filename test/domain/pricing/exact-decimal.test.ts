import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Decimal } from '../../../src/domain/money.js';
import fc from 'fast-check';
import { ceilRatio, floorRatio, ratioToSignificantDigits } from '../../../src/domain/pricing/exact-decimal.js';

const d = (s: string) => new Decimal(s);

describe('floorRatio / ceilRatio', () => {
  it('round a non-terminating quotient to the requested places', () => {
    assert.equal(floorRatio(d('1'), d('3'), 5).toFixed(), '0.33333');
    assert.equal(ceilRatio(d('1'), d('3'), 5).toFixed(), '0.33334');
    assert.equal(floorRatio(d('2'), d('3'), 0).toFixed(), '0');
    assert.equal(ceilRatio(d('2'), d('3'), 0).toFixed(), '1');
  });

  it('leave an exact quotient alone', () => {
    assert.equal(floorRatio(d('1'), d('4'), 2).toFixed(), '0.25');
    assert.equal(ceilRatio(d('1'), d('4'), 2).toFixed(), '0.25');
  });

  it('floor toward minus infinity and ceil toward plus infinity for negatives', () => {
    assert.equal(floorRatio(d('-7'), d('2'), 0).toFixed(), '-4');
    assert.equal(ceilRatio(d('-7'), d('2'), 0).toFixed(), '-3');
  });

  it('are exact where a 20-digit default Decimal division would not be', () => {
    // 1 / (1 - 1e-30) = 1.000...0001000... : the first non-zero fraction digit is the 30th.
    const denominator = d('0.999999999999999999999999999999');
    assert.equal(floorRatio(d('1'), denominator, 29).toFixed(), '1');
    assert.equal(ceilRatio(d('1'), denominator, 29).toFixed(), '1.00000000000000000000000000001');
    // decimal.js's default constructor (20 digits, half up) rounds the quotient to exactly 1.
    const Default = Decimal.clone({ precision: 20, rounding: Decimal.ROUND_HALF_UP });
    assert.equal(new Default(1).div(denominator).toFixed(), '1');
  });

  it('reject a non-positive denominator and bad places (caller bugs)', () => {
    assert.throws(() => floorRatio(d('1'), d('0'), 2), RangeError);
    assert.throws(() => ceilRatio(d('1'), d('-1'), 2), RangeError);
    assert.throws(() => floorRatio(d('1'), d('3'), 1.5), RangeError);
  });

  it('match a BigInt reference floor and ceil', () => {
    const scaled = (units: bigint, scale: number) => new Decimal(`${units}e-${scale}`);
    fc.assert(
      fc.property(
        fc.bigInt(-(10n ** 30n), 10n ** 30n),
        fc.integer({ min: 0, max: 20 }),
        fc.bigInt(1n, 10n ** 25n),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 0, max: 24 }),
        (nUnits, nScale, dUnits, dScale, places) => {
          // n/d = (nUnits / 10^nScale) / (dUnits / 10^dScale); scaled by 10^places:
          const num = nUnits * 10n ** BigInt(dScale + places);
          const den = dUnits * 10n ** BigInt(nScale);
          const q = num / den; // truncates toward zero
          const floor = num % den !== 0n && num < 0n ? q - 1n : q;
          const ceil = num % den !== 0n && num > 0n ? q + 1n : q;
          const n = scaled(nUnits, nScale);
          const dd = scaled(dUnits, dScale);
          assert.ok(floorRatio(n, dd, places).eq(scaled(floor, places)));
          assert.ok(ceilRatio(n, dd, places).eq(scaled(ceil, places)));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('ratioToSignificantDigits', () => {
  it('truncates (never rounds up) to 40 significant digits', () => {
    assert.equal(ratioToSignificantDigits(d('2'), d('3')).toFixed(), '0.' + '6'.repeat(40));
    assert.equal(ratioToSignificantDigits(d('1'), d('8')).toFixed(), '0.125');
  });
});
