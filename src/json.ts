import { Decimal } from './domain/money.js';
import { stringify } from 'lossless-json';

/**
 * An exact decimal kept as the text it came in (a NUMERIC column as the driver returns it, e.g.
 * `1.500000000000000000`). toJson writes it as the number `new Decimal(text)` would be written
 * (`1.5`) without building the Decimal; plain JSON.stringify writes the text as a string.
 */
export class DecimalText {
  constructor(readonly text: string) {}

  toJSON(): string {
    return this.text;
  }
}

/**
 * JSON text in which Decimal values are written as exact JSON numbers (`0.00012`, never a
 * string, never a binary-float artefact such as `0.30000000000000004` or `1.2e-7`).
 * Callers round to the coin's decimals first; this only writes what it is given.
 * A DecimalText is written as the number its Decimal would be.
 *
 * The values responses are made of (plain objects and arrays, strings, finite numbers,
 * booleans, null, Dates, Decimals) are written by a direct writer; anything else sends the
 * whole value to lossless-json's generic writer, so the output is lossless-json's either way.
 */
export function toJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = writeValue(value);
  } catch (error) {
    if (error !== UNSUPPORTED) throw error;
    text = genericJson(value);
  }
  if (text === undefined) throw new TypeError('value is not serialisable to JSON');
  return text;
}

/** Thrown (never escapes toJson) when the direct writer meets a value it leaves to lossless-json. */
const UNSUPPORTED = new Error('value left to the generic writer');

const LOSSLESS_NUMBER = Symbol.for('lossless-json.LosslessNumber');

/** What JSON.stringify escapes in a string: the quote, the backslash, controls and lone surrogates. */
// eslint-disable-next-line no-control-regex -- the control characters are what is looked for
const NEEDS_ESCAPING = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A string as JSON text, as toJson writes it: the writers derived from a view call it directly. */
export function writeString(value: string): string {
  // Equal to JSON.stringify(value) when nothing needs escaping; JSON.stringify otherwise.
  return NEEDS_ESCAPING.test(value) ? JSON.stringify(value) : `"${value}"`;
}

/** A number as JSON text, as toJson writes it (JSON has no NaN or Infinity: those are null). */
export function writeNumber(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}

/**
 * lossless-json's stringify (as toJson configures it), restricted to the values above:
 * undefined, a function or a symbol are left out of an object, null in an array, and
 * `undefined` at the top.
 */
function writeValue(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return writeString(value);
    case 'number':
      return writeNumber(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    case 'object':
      return value === null ? 'null' : writeObject(value);
    default:
      return undefined;
  }
}

function writeObject(value: object): string {
  if (value instanceof DecimalText) return decimalTextLiteral(value.text);
  // lossless-json asks Decimal.isDecimal first, of every value.
  if (Decimal.isDecimal(value)) return decimalLiteral(value);
  // lossless-json writes an object carrying its LosslessNumber mark as that number's text.
  if ((value as Record<symbol, unknown>)[LOSSLESS_NUMBER] !== undefined) throw UNSUPPORTED;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype === Array.prototype) return writeArray(value as unknown[]);
  if (prototype === Date.prototype) return JSON.stringify(value);
  if (prototype !== Object.prototype && prototype !== null) throw UNSUPPORTED;
  const record = value as Record<string, unknown>;
  // lossless-json calls a toJSON function.
  if (record.toJSON !== undefined) throw UNSUPPORTED;
  let text = '{';
  for (const key of Object.keys(record)) {
    const written = writeValue(record[key]);
    if (written === undefined) continue;
    text += `${text.length === 1 ? '' : ','}${writeString(key)}:${written}`;
  }
  return `${text}}`;
}

function writeArray(array: unknown[]): string {
  let text = '[';
  for (let i = 0; i < array.length; i++) {
    if (i > 0) text += ',';
    text += writeValue(array[i]) ?? 'null';
  }
  return `${text}]`;
}

/** lossless-json with Decimal and DecimalText as numbers: toJson as it was before the direct writer. */
function genericJson(value: unknown): string | undefined {
  return stringify(value, undefined, undefined, [
    { test: (value) => Decimal.isDecimal(value), stringify: (value) => decimalLiteral(value as Decimal) },
    { test: (value) => value instanceof DecimalText, stringify: (value) => decimalTextLiteral((value as DecimalText).text) },
  ]);
}

function decimalLiteral(value: Decimal): string {
  const literal = value.toFixed();
  // lossless-json's own refusal of a number stringifier's output that is not a JSON number.
  if (!value.isFinite()) throw new Error(`Invalid JSON number: output of a number stringifier must be a string containing a JSON number (output: ${literal})`);
  return literal;
}

/** Optional minus, digits, optional point and digits: how PostgreSQL writes a finite NUMERIC. */
const PLAIN_DECIMAL = /^-?\d+(?:\.\d+)?$/;

/**
 * `new Decimal(text).toFixed()` without the Decimal, for plain decimal text: the scale's trailing
 * zeros go (and the point with them), leading zeros and the minus of a zero too. Other text (an
 * exponent, NaN) goes through Decimal.
 */
export function decimalTextLiteral(text: string): string {
  if (!PLAIN_DECIMAL.test(text)) return decimalLiteral(new Decimal(text));
  let end = text.length;
  if (text.includes('.')) {
    while (text.charCodeAt(end - 1) === ZERO) end--;
    if (text.charCodeAt(end - 1) === POINT) end--;
  }
  const negative = text.charCodeAt(0) === MINUS;
  let start = negative ? 1 : 0;
  // Leading zeros, keeping the one before a point or the last digit.
  while (text.charCodeAt(start) === ZERO && start + 1 < end && text.charCodeAt(start + 1) !== POINT) start++;
  const magnitude = text.slice(start, end);
  return negative && magnitude !== '0' ? `-${magnitude}` : magnitude;
}

const ZERO = 48;
const POINT = 46;
const MINUS = 45;
