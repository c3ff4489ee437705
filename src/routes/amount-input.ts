import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { isLosslessNumber } from 'lossless-json';
import { DECIMAL_PATTERN, Decimal, isStorableDecimal, parseNumberLiteral } from '../domain/money.js';
import { ApiError, type ErrorItem } from '../errors.js';
import { exactBody } from '../plugins/json-body.js';

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

/** What an amount field may be besides positive, for the routes that need more than that. */
export interface AmountRules {
  /** 0 is an amount too (a fee that may be nothing). Default: only amounts greater than 0. */
  zero?: boolean;
  /** The amount must fit NUMERIC(38, 18) (isStorableDecimal), for routes that store it as sent. */
  storable?: boolean;
}

/**
 * The body's amounts exactly as sent: a decimal string as written; a JSON number as its literal
 * in the raw body (plugins/json-body.ts's exactBody, parsed once per request). Each amount that
 * breaks `rules` is an `amount_invalid` item; all of them are reported at once (400 bad_request).
 */
export function readBodyAmounts<Field extends string>(
  request: FastifyRequest,
  fields: readonly Field[],
  rules: AmountRules = {},
): Partial<Record<Field, Decimal>> {
  const body = (request.body ?? {}) as Readonly<Partial<Record<Field, unknown>>>;
  const amounts: Partial<Record<Field, Decimal>> = {};
  const problems: ErrorItem[] = [];
  for (const field of fields) {
    const raw = body[field];
    if (raw === undefined || raw === null) continue;
    let amount: Decimal | undefined;
    if (typeof raw === 'string') {
      amount = new Decimal(raw);
    } else {
      const literal = exactBody(request)[field];
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
    if (rules.zero === true ? amount.lt(0) : amount.lte(0)) {
      problems.push({ code: 'amount_invalid', field, detail: `body/${field} must be ${rules.zero === true ? 'at least 0' : 'greater than 0'}` });
      continue;
    }
    if (rules.storable === true && !isStorableDecimal(amount)) {
      problems.push({ code: 'amount_invalid', field, detail: `body/${field} must be below 1e20 with at most 18 decimals` });
      continue;
    }
    amounts[field] = amount;
  }
  const first = problems[0];
  if (first !== undefined) throw new ApiError('bad_request', first.detail, undefined, undefined, problems);
  return amounts;
}

/**
 * The body's amounts as exact decimal text, for a service that takes text from a JSON body and
 * a form alike (the catalog's edits): a number literal becomes the digits as written, never
 * the float JavaScript parsed it into.
 */
export function readBodyAmountTexts<Field extends string>(request: FastifyRequest, fields: readonly Field[], rules: AmountRules = {}): Partial<Record<Field, string>> {
  const amounts = readBodyAmounts(request, fields, rules);
  return Object.fromEntries(Object.entries<Decimal | undefined>(amounts).flatMap(([field, amount]) => (amount === undefined ? [] : [[field, amount.toFixed()]]))) as Partial<Record<Field, string>>;
}
