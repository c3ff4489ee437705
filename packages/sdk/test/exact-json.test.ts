import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decimalLiteral, parseExactJson, plainDecimal, stringifyExact } from '../src/exact-json.js';
import { parseApiJson, stringifyApiJson } from '../src/api-json.js';

/** The SDK's exact JSON: amounts keep every digit both ways; everything else is plain JSON. */
describe('exact JSON', () => {
  it('parses any JSON as JSON.parse does when numbers are read as numbers', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        assert.deepEqual(parseExactJson(text, (literal) => Number(literal)), JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it('gives every number literal, with its property, to the reader', () => {
    const seen: Array<[string, string | undefined]> = [];
    parseExactJson(' {"a": 1.50, "b": [2, -3e-2], "c": {"d": 0}} ', (literal, key) => seen.push([literal, key]));
    assert.deepEqual(seen, [['1.50', 'a'], ['2', 'b'], ['-3e-2', 'b'], ['0', 'd']]);
  });

  it('refuses malformed JSON as JSON.parse would', () => {
    for (const text of ['{"a":1,}', '[1 2]', '[1,]', '{"a" 1}', '"unterminated', '01', '1.', '-', '"\\x"', '{"a":1}}', '{"a":1} x', '', 'nul', '"\u0001"']) {
      assert.throws(() => JSON.parse(text), SyntaxError, text);
      assert.throws(() => parseExactJson(text, Number), SyntaxError, text);
    }
  });

  it('takes the last of a repeated key, as JSON.parse does', () => {
    assert.deepEqual(parseExactJson('{"a": 1, "a": 2}', Number), JSON.parse('{"a": 1, "a": 2}'));
  });

  it('reads and writes arrays of amounts (at any depth) with their property; objects in them by their own', () => {
    const text = '{"amount":[1.000000000000000001,[2.5]],"rates":[{"rate":0.1,"count":3}],"limit":7}';
    const parsed = parseApiJson(text);
    assert.deepEqual(parsed, { amount: ['1.000000000000000001', ['2.5']], rates: [{ rate: '0.1', count: 3 }], limit: 7 });
    assert.equal(stringifyApiJson(parsed), text);
  });

  it('keeps an own "__proto__" property as JSON.parse does', () => {
    const parsed = parseExactJson('{"__proto__": {"x": 1}}', Number) as Record<string, unknown>;
    assert.deepEqual(Object.keys(parsed), ['__proto__']);
    assert.equal(Object.getPrototypeOf(parsed), Object.prototype);
  });

  it('round-trips decimal amounts of any length through the API JSON exactly', () => {
    const decimal = fc
      .tuple(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.nat({ max: 30 }))
      .map(([digits, scale]) => {
        const text = digits.toString().padStart(scale + 1, '0');
        return scale === 0 ? text : `${text.slice(0, -scale)}.${text.slice(-scale)}`;
      });
    fc.assert(
      fc.property(decimal, (amount) => {
        const text = stringifyApiJson({ amount_from: amount, coin_from: 'ETH', limit: 5 });
        assert.equal(text, `{"amount_from":${amount},"coin_from":"ETH","limit":5}`);
        assert.deepEqual(parseApiJson(text), { amount_from: amount, coin_from: 'ETH', limit: 5 });
      }),
      { numRuns: 300 },
    );
    // Past a float's 15-17 significant digits.
    assert.deepEqual(parseApiJson('{"min_amount": 123456789012345678.123456789012345678}'), { min_amount: '123456789012345678.123456789012345678' });
  });

  it('writes decimal strings as plain JSON numbers and refuses JS numbers for amounts', () => {
    assert.equal(decimalLiteral('0.10', 'x'), '0.10');
    assert.equal(decimalLiteral('.5', 'x'), '0.5');
    assert.equal(decimalLiteral('+007.25', 'x'), '7.25');
    assert.equal(decimalLiteral('5.', 'x'), '5');
    for (const bad of ['', '.', '1e5', '0x10', '1,5', 'NaN', '1.2.3']) assert.throws(() => decimalLiteral(bad, 'amount'), /amount must be a decimal string/, bad);
    assert.throws(() => stringifyApiJson({ amount_from: 0.1 }), /amount_from must be a decimal string/);
    assert.equal(stringifyExact({ a: undefined, b: [undefined, 1], c: null }, () => false), '{"b":[null,1],"c":null}');
  });

  it('spells out an exponent, should the API ever send one', () => {
    assert.equal(plainDecimal('1.5e-7'), '0.00000015');
    assert.equal(plainDecimal('-2E3'), '-2000');
    assert.equal(plainDecimal('1.25e1'), '12.5');
    assert.equal(plainDecimal('0.5'), '0.5');
  });
});
