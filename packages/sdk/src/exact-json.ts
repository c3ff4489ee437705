/**
 * JSON with exact numbers. The API writes amounts as JSON numbers with as many digits as the
 * coin has (18 for ETH); `JSON.parse` would turn them into binary floats and lose digits past
 * the 15th or 16th. lossless-json reads every number literal as written (a LosslessNumber); the
 * reviver here hands each one, with the property it belongs to, to the caller, which keeps
 * decimal amounts as strings. Writing goes the other way: the decimal properties' strings become
 * number literals, digit for digit.
 */
import { isLosslessNumber, LosslessNumber, parse, stringify } from 'lossless-json';

/** What a number literal becomes: `key` is its property's name (an array's for its elements). */
export type NumberReader = (literal: string, key: string | undefined) => unknown;

/** Parses JSON text, giving each number literal to `readNumber` instead of making it a float. */
export function parseExactJson(text: string, readNumber: NumberReader): unknown {
  /** A value as read for its property `key`: its numbers, and those of arrays in it, read. */
  const read = (value: unknown, key: string): unknown => {
    if (isLosslessNumber(value)) return readNumber(value.value, key === '' ? undefined : key);
    return Array.isArray(value) ? value.map((item) => read(item, key)) : value;
  };
  return parse(
    text,
    // Bottom up: an array's items are left as they are (their index is no property name) and read
    // with the array's property; an object in an array has had its own properties read already.
    function (this: unknown, key, value) {
      return Array.isArray(this) ? value : read(value, key);
    },
    // A repeated key: the last value, as JSON.parse (lossless-json would throw).
    { onDuplicateKey: ({ newValue }) => newValue },
  );
}

const DECIMAL_INPUT = /^([+-]?)(\d*)(?:\.(\d*))?$/;

/**
 * A decimal string as the plain JSON number literal it stands for: `"0.10"`, `".5"`, `"+7"` are
 * `0.10`, `0.5`, `7` (trailing zeros kept: they are what was typed, and the API does not count
 * them as decimals). Exponents are refused, as the API refuses them in query strings.
 */
export function decimalLiteral(value: string, name: string): string {
  const match = DECIMAL_INPUT.exec(value.trim());
  const [, sign = '', whole = '', fraction] = match ?? [];
  if (match === null || (whole === '' && (fraction ?? '') === '')) {
    throw new TypeError(`${name} must be a decimal string such as "0.1", got ${JSON.stringify(value)}`);
  }
  const integer = whole.replace(/^0+(?=\d)/, '') || '0';
  return `${sign === '-' ? '-' : ''}${integer}${fraction === undefined || fraction === '' ? '' : `.${fraction}`}`;
}

/** A number literal from the API as a plain decimal string (an exponent, if one ever comes, spelled out). */
export function plainDecimal(literal: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?[eE]([+-]?\d+)$/.exec(literal);
  if (match === null) return literal;
  const [, sign = '', whole = '', fraction = '', exponentText = '0'] = match;
  const digits = `${whole}${fraction}`;
  const point = whole.length + Number(exponentText);
  const padded = point <= 0 ? `${'0'.repeat(1 - point)}${digits}` : point > digits.length ? digits.padEnd(point, '0') : digits;
  const at = Math.max(point, 1);
  const integer = padded.slice(0, at).replace(/^0+(?=\d)/, '');
  const rest = padded.slice(at).replace(/0+$/, '');
  return `${sign}${integer}${rest === '' ? '' : `.${rest}`}`;
}

/**
 * JSON text in which the properties `isDecimal` names are written as number literals from their
 * decimal strings: an amount leaves as the digits it was given, never through a float. A JS
 * number there is refused (it may already have lost digits); use a string.
 */
export function stringifyExact(value: unknown, isDecimal: (key: string) => boolean): string {
  const exact = (member: unknown, key: string): unknown => {
    if (typeof member === 'string') return new LosslessNumber(decimalLiteral(member, key));
    if (typeof member === 'number') throw new TypeError(`${key} must be a decimal string (such as "0.1"), not a JS number: amounts are exact`);
    return Array.isArray(member) ? member.map((item) => exact(item, key)) : member;
  };
  const text = stringify(value, function (this: unknown, key, member) {
    // An array's items are written with the array's property (above), not their index.
    return !Array.isArray(this) && isDecimal(key) ? exact(member, key) : member;
  });
  if (text === undefined) throw new TypeError('the value is not serialisable to JSON');
  return text;
}
