/** The API's JSON, read and written with its decimal properties exact (generated/decimal-fields.ts). */
import { DECIMAL_FIELDS } from './generated/decimal-fields.js';
import { parseExactJson, plainDecimal, stringifyExact } from './exact-json.js';

const DECIMAL: ReadonlySet<string> = new Set(DECIMAL_FIELDS);
const isDecimal = (key: string): boolean => DECIMAL.has(key);

/** An API body: decimal amounts as strings (every digit kept), other numbers as numbers. */
export function parseApiJson(text: string): unknown {
  return parseExactJson(text, (literal, key) => (key !== undefined && isDecimal(key) ? plainDecimal(literal) : Number(literal)));
}

/** A request body: decimal amounts, given as strings, written as exact JSON numbers. */
export function stringifyApiJson(value: unknown): string {
  return stringifyExact(value, isDecimal);
}

/** A query value: a decimal amount is checked and written plain; the rest as text. */
export { decimalLiteral } from './exact-json.js';
export { isDecimal };
