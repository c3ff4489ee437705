import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Decimal } from '../src/domain/money.js';
import fc from 'fast-check';
import { LosslessNumber, stringify } from 'lossless-json';
import { DecimalText, decimalTextLiteral, toJson } from '../src/json.js';
import { anyCodePoint } from './helpers/text-arbitraries.js';

/**
 * toJson writes what lossless-json's stringify with a Decimal hook wrote (toJson before the
 * direct writer), byte for byte, and a DecimalText as the Decimal of its text.
 */

/** toJson as it was: the reference. */
function losslessJson(value: unknown): string | undefined {
  return stringify(value, undefined, undefined, [{ test: (v) => Decimal.isDecimal(v), stringify: (v) => (v as Decimal).toFixed() }]);
}

/** The same value with every DecimalText replaced by the Decimal of its text. */
function asDecimals(value: unknown): unknown {
  if (value instanceof DecimalText) return new Decimal(value.text);
  if (Array.isArray(value)) return value.map(asDecimals);
  if (value !== null && typeof value === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(value) as object | null)) {
    const copy = Object.create(Object.getPrototypeOf(value) as object | null) as Record<string, unknown>;
    for (const [key, item] of Object.entries(value)) Object.defineProperty(copy, key, { value: asDecimals(item), enumerable: true });
    return copy;
  }
  return value;
}

const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));
/** Any text: lone surrogates, controls, quotes and backslashes included. */
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: anyCodePoint }),
  fc.string({ unit: codeUnit }),
  fc.string({ unit: fc.constantFrom('"', '\\', '\u0000', '\u001f', '\u007f', '\u2028', '\ud800', '\udc00', '💩', 'a', '0', '.', '-') }),
  // Text that looks like a number, or like a number written by a writer that marks its own.
  fc.constantFrom('0.1', '1e-7', '-0', 'NaN', '"1.5"', '~00ff~1.5', '\u0000 1.5', '__proto__', 'toJSON'),
);

const plainDecimalText = fc
  .tuple(fc.boolean(), fc.string({ unit: fc.constantFrom('0', '1', '9'), minLength: 1, maxLength: 24 }), fc.option(fc.string({ unit: fc.constantFrom('0', '5', '7'), minLength: 1, maxLength: 24 })))
  .map(([negative, integer, fraction]) => `${negative ? '-' : ''}${integer}${fraction === null ? '' : `.${fraction}`}`);
/** NUMERIC(38, 18) as PostgreSQL writes it: always 18 fraction digits. */
const numeric38 = fc
  .tuple(fc.bigInt({ min: -(10n ** 38n) + 1n, max: 10n ** 38n - 1n }))
  .map(([units]) => {
    const digits = (units < 0n ? -units : units).toString().padStart(19, '0');
    return `${units < 0n ? '-' : ''}${digits.slice(0, -18)}.${digits.slice(-18)}`;
  });

const decimal = fc.oneof(
  numeric38.map((value) => new Decimal(value)),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => new Decimal(value)),
  fc.constantFrom('0', '-0', '1e-30', '1.2e-7', '123456789012345678901234567890.5', '0.30000000000000004').map((value) => new Decimal(value)),
);
const decimalText = fc.oneof(numeric38, plainDecimalText).map((value) => new DecimalText(value));

const leaf = fc.oneof(
  { weight: 4, arbitrary: text },
  { weight: 2, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constantFrom(undefined, () => 1, Symbol('s')) },
  { weight: 1, arbitrary: fc.bigInt() },
  { weight: 1, arbitrary: fc.date({ noInvalidDate: false }) },
  { weight: 3, arbitrary: decimal },
  { weight: 3, arbitrary: decimalText },
);

const { tree } = fc.letrec((tie) => ({
  tree: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('array'), tie('object')),
  array: fc.array(tie('tree'), { maxLength: 6 }),
  object: fc.dictionary(text, tie('tree'), { maxKeys: 6 }),
}));

describe('toJson', () => {
  it('writes what lossless-json with the Decimal hook wrote, for any mix of values', () => {
    fc.assert(
      fc.property(tree, (value) => {
        // At the top, undefined (a function, a symbol) is refused: see below.
        assert.equal(toJson([value]), losslessJson([asDecimals(value)]));
        if (value !== undefined && typeof value !== 'function' && typeof value !== 'symbol') {
          assert.equal(toJson(value), losslessJson(asDecimals(value)));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('writes values without Decimals exactly as JSON.stringify (as lossless-json does)', () => {
    const plain = fc.letrec((tie) => ({
      tree: fc.oneof({ depthSize: 'small' }, text, fc.double(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.date({ noInvalidDate: false }), tie('array'), tie('object')),
      array: fc.array(tie('tree'), { maxLength: 6 }),
      object: fc.dictionary(text, tie('tree'), { maxKeys: 6 }),
    })).tree;
    fc.assert(
      fc.property(plain, (value) => {
        const expected = JSON.stringify(value);
        assert.equal(losslessJson(value), expected);
        assert.equal(toJson({ value }), JSON.stringify({ value }));
      }),
      { numRuns: 3000 },
    );
  });

  it('writes a Decimal as its toFixed(), never as a string or with an exponent', () => {
    assert.equal(toJson({ a: new Decimal('1.2e-7'), b: [new Decimal('1e21'), new Decimal('-0')] }), '{"a":0.00000012,"b":[1000000000000000000000,0]}');
    assert.equal(toJson(new Decimal('0.1').plus('0.2')), '0.3');
    assert.equal(toJson({ a: new DecimalText('1.500000000000000000') }), '{"a":1.5}');
  });

  it('leaves what it does not write itself to lossless-json: the same text', () => {
    class Money {
      constructor(readonly amount: Decimal, readonly coin: string) {}
    }
    const nullPrototype = Object.assign(Object.create(null) as object, { a: new Decimal('1.10'), b: 'x' });
    const values: unknown[] = [
      new Money(new Decimal('2.50'), 'BTC'),
      { toJSON: () => ({ a: new Decimal('3.0') }) },
      { toJSON: 'not a function', a: 1 },
      { nested: { toJSON: () => new Decimal('4.25') } },
      new Map([['a', 1]]),
      [new Number(1), new String('s'), new Boolean(false)],
      nullPrototype,
      { n: new LosslessNumber('12345678901234567890.123') },
      Object.assign([1, 2], { extra: true }),
      // eslint-disable-next-line no-sparse-arrays
      [1, , 3],
      { date: new Date(Number.NaN), later: new Date(8.64e15) },
    ];
    for (const value of values) assert.equal(toJson(value), losslessJson(value));
  });

  it('refuses what lossless-json refused: non-finite Decimals, and nothing to write', () => {
    assert.throws(() => toJson({ a: new Decimal(Number.NaN) }), /Invalid JSON number/);
    assert.throws(() => losslessJson({ a: new Decimal(Number.NaN) }), /Invalid JSON number/);
    assert.throws(() => toJson([new Decimal(Infinity)]), /Invalid JSON number/);
    assert.throws(() => toJson(new DecimalText('NaN')), /Invalid JSON number/);
    assert.throws(() => toJson(undefined), TypeError);
    assert.throws(() => toJson(() => 1), TypeError);
  });
});

describe('decimalTextLiteral', () => {
  it('is new Decimal(text).toFixed() for plain decimal text and NUMERIC(38, 18) output', () => {
    fc.assert(
      fc.property(fc.oneof(plainDecimalText, numeric38), (value) => {
        assert.equal(decimalTextLiteral(value), new Decimal(value).toFixed());
      }),
      { numRuns: 5000 },
    );
    for (const value of ['0', '-0', '0.000', '-0.000', '000.100', '1.500000000000000000', '100', '100.000', '-00012.3400', '1e-7', '1E+3', '.5', '5.']) {
      assert.equal(decimalTextLiteral(value), new Decimal(value).toFixed(), value);
    }
  });
});
