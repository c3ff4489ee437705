import { Decimal } from 'decimal.js';
import { stringify } from 'lossless-json';

/**
 * JSON text in which Decimal values are written as exact JSON numbers (`0.00012`, never a
 * string, never a binary-float artefact such as `0.30000000000000004` or `1.2e-7`).
 * Callers round to the coin's decimals first; this only writes what it is given.
 */
export function toJson(value: unknown): string {
  const text = stringify(value, undefined, undefined, [{ test: (value) => Decimal.isDecimal(value), stringify: decimalLiteral }]);
  if (text === undefined) throw new TypeError('value is not serialisable to JSON');
  return text;
}

function decimalLiteral(value: unknown): string {
  return (value as Decimal).toFixed();
}
