import { Type } from '@sinclair/typebox';
import { isLosslessNumber, parse } from 'lossless-json';
import { DECIMAL_PATTERN, Decimal, parseNumberLiteral } from '../domain/money.js';
import { ApiError, type ErrorItem } from '../errors.js';

/**
 * Amounts in requests (docs/contract.md §10.5): a JSON number, as v1 has it, or a decimal string such as
 * `"0.1"` (no sign, no exponent, at most 18 decimals; the coin's own decimals are checked where
 * the coin is known, by the quote). Both are read exactly, to the same Decimal.
 *
 * `x-amount` marks the property for the error handler (plugins/error-handler.ts): a schema
 * failure of an amount is reported as an `amount_invalid` item naming the field. It is an
 * OpenAPI extension, so the document may carry it; Ajv ignores it (strict is off).
 */
const AMOUNT_MARK = { 'x-amount': true } as const;

/** A body amount: a JSON number greater than 0, or a decimal string. */
export const BodyAmount = (description: string) =>
  Type.Union(
    [
      Type.Number({ exclusiveMinimum: 0, description: 'a JSON number greater than 0, read exactly as written' }),
      Type.String({ pattern: DECIMAL_PATTERN, description: 'v1.2: a decimal string such as "0.1": no sign, no exponent' }),
    ],
    { description, ...AMOUNT_MARK },
  );

/** A query amount: query strings are text, so a decimal string (no sign, no exponent). */
export const QueryAmount = (description: string) => Type.String({ pattern: DECIMAL_PATTERN, description, ...AMOUNT_MARK });

/**
 * The body's amounts exactly as sent: a decimal string as written; a JSON number read again from
 * the raw body (JSON.parse has made it a binary float already). Each amount that is no positive
 * amount is an `amount_invalid` item; all of them are reported at once (400 bad_request).
 */
export function readBodyAmounts<Field extends string>(
  rawBody: Buffer | undefined,
  body: Readonly<Partial<Record<Field, string | number | null | undefined>>>,
  fields: readonly Field[],
): Partial<Record<Field, Decimal>> {
  const amounts: Partial<Record<Field, Decimal>> = {};
  const problems: ErrorItem[] = [];
  let lossless: Partial<Record<Field, unknown>> | undefined;
  for (const field of fields) {
    const raw = body[field];
    if (raw === undefined || raw === null) continue;
    let amount: Decimal | undefined;
    if (typeof raw === 'string') {
      amount = new Decimal(raw);
    } else {
      lossless ??= readLossless<Field>(rawBody);
      const literal = lossless[field];
      if (!isLosslessNumber(literal)) {
        problems.push({ code: 'amount_invalid', field, detail: `body/${field} must be a number or a decimal string` });
        continue;
      }
      amount = parseNumberLiteral(literal.toString());
      if (amount === undefined) {
        problems.push({ code: 'amount_invalid', field, detail: `body/${field} is out of range` });
        continue;
      }
    }
    if (amount.lte(0)) {
      problems.push({ code: 'amount_invalid', field, detail: `body/${field} must be greater than 0` });
      continue;
    }
    amounts[field] = amount;
  }
  const first = problems[0];
  if (first !== undefined) throw new ApiError('bad_request', first.detail, undefined, undefined, problems);
  return amounts;
}

function readLossless<Field extends string>(rawBody: Buffer | undefined): Partial<Record<Field, unknown>> {
  try {
    return parse(rawBody?.toString('utf8') ?? '') as Partial<Record<Field, unknown>>;
  } catch (error) {
    // JSON.parse accepted the body, so this is a field sent twice with different values
    // (JSON.parse keeps the last, lossless-json refuses): ambiguous, so refused.
    throw new ApiError('bad_request', `request body is ambiguous: ${error instanceof Error ? error.message : 'unreadable'}`);
  }
}
