import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Decimal } from '../../../src/domain/money.js';
import { floorRatio, ratioToSignificantDigits } from '../../../src/domain/pricing/exact-decimal.js';
import { ceilDiv, floorDiv, fromScaled, significantQuotient, toScaled, unitsAt } from '../../../src/domain/pricing/scaled-integer.js';

// The scaled-integer helpers the per-amount half of a quote runs on (issue 18), each checked
// against the Decimal function it replaces, which stays the reference.

const RUNS = 300;

/** Positive integers from 1 to 60 digits, biased to the short ones. */
const magnitude = fc.oneof(
  { weight: 3, arbitrary: fc.bigInt(1n, 10n ** 12n) },
  { weight: 2, arbitrary: fc.bigInt(1n, 10n ** 30n) },
  { weight: 1, arbitrary: fc.bigInt(1n, 10n ** 60n) },
);
const decimalArb = fc.tuple(fc.bigInt(-(10n ** 40n), 10n ** 40n), fc.integer({ min: 0, max: 30 })).map(([units, scale]) => ({ units, scale }));

void describe('scaled integers', () => {
  void it('significantQuotient is ratioToSignificantDigits: n / d cut to 40 significant digits toward zero', () => {
    fc.assert(
      fc.property(magnitude, magnitude, (n, d) => {
        assert.deepStrictEqual(significantQuotient(n, d), ratioToSignificantDigits(new Decimal(n.toString()), new Decimal(d.toString())));
      }),
      { numRuns: RUNS },
    );
    // Terminating quotients come out exact and short; the boundaries of the 40 digits hold.
    assert.equal(significantQuotient(1n, 8n).toFixed(), '0.125');
    assert.equal(significantQuotient(10n ** 45n, 1n).toFixed(), (10n ** 45n).toString());
    assert.equal(significantQuotient(2n, 3n).toFixed(), `0.${'6'.repeat(40)}`);
    assert.equal(significantQuotient(10n ** 41n + 7n, 1n).toFixed(), (10n ** 41n).toString(), 'the 41st digit and beyond are cut');
    assert.throws(() => significantQuotient(0n, 1n), RangeError);
  });

  void it('floorDiv and ceilDiv scaled back are floorRatio and its ceiling, negatives included', () => {
    fc.assert(
      fc.property(fc.bigInt(-(10n ** 50n), 10n ** 50n), magnitude, fc.integer({ min: 0, max: 20 }), (n, d, places) => {
        const floored = fromScaled(floorDiv(n * 10n ** BigInt(places), d), places);
        assert.deepStrictEqual(floored, floorRatio(new Decimal(n.toString()), new Decimal(d.toString()), places));
        const ceiled = fromScaled(ceilDiv(n * 10n ** BigInt(places), d), places);
        const reference = floorRatio(new Decimal((-n).toString()), new Decimal(d.toString()), places).neg();
        // The reference's zero is -0 (a negated zero); the integer one is a plain 0.
        if (reference.isZero()) assert.ok(ceiled.isZero() && !ceiled.isNegative());
        else assert.deepStrictEqual(ceiled, reference);
      }),
      { numRuns: RUNS },
    );
  });

  void it('toScaled, unitsAt and fromScaled are exact inverses of each other', () => {
    fc.assert(
      fc.property(decimalArb, fc.integer({ min: 0, max: 10 }), ({ units, scale }, extra) => {
        const value = fromScaled(units, scale);
        assert.deepStrictEqual(value, new Decimal(`${units}e-${scale}`));
        const back = toScaled(value);
        assert.deepStrictEqual(fromScaled(back.units, back.scale), value);
        assert.equal(back.scale, value.decimalPlaces());
        assert.equal(unitsAt(value, scale + extra), units * 10n ** BigInt(extra));
      }),
      { numRuns: RUNS },
    );
    assert.throws(() => unitsAt(new Decimal('0.001'), 2), RangeError);
    assert.throws(() => toScaled(new Decimal(Infinity)), RangeError);
  });
});
