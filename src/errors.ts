/**
 * The closed set of error codes and the one HTTP status each maps to. Every error the API
 * answers is `{"detail": "...", "code": "...", "errors": [...]}` (plus documented extra fields
 * such as the pair limits on amount errors), built by the error handler in
 * plugins/error-handler.ts. `code` is the request's one outcome (its status); `errors` lists
 * every problem found in the request (docs/contract.md §10.4), each with a code of ERROR_ITEM_CODES.
 */
export const ERROR_STATUS = {
  bad_request: 400,
  invalid_json: 400,
  unauthorized: 401,
  invalid_signature: 401,
  forbidden: 403,
  /** docs/contract.md §10.8: the order's X-End-User-IP is in the operator's blocklist (IP_BLOCKLIST, REGION_BLOCKLIST). */
  region_restricted: 403,
  /** docs/contract.md §10.9: a client key (pk_client_…) used where only a full key may go. */
  scope: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  /** docs/contract.md §10.8: the partner's mode already has an order with this external_id (its id in `order_id`). */
  external_id_conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  amount_out_of_range: 422,
  /** docs/contract.md §7.1: the pair cannot be quoted now (inactive, deposit/withdraw off, no fresh price, same currency). */
  pair_unavailable: 422,
  /** docs/contract.md §7.1: a fixed quote_id that is expired, used, or does not match the order. */
  quote_invalid: 422,
  /** docs/contract.md §3: the partner already has as many orders awaiting a deposit as it may (max_open_orders). */
  open_orders_limit: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

/**
 * Codes only an item of `errors` carries (docs/contract.md §10.4): they say which problem a field has, while
 * the top-level `code` stays what v1.1 answered for the same request (an unknown coin is still
 * 400 `bad_request`, with an item `currency_unsupported` naming coin_from).
 */
const ITEM_ONLY_CODES = [
  /** The coin is not in the catalog. */
  'currency_unsupported',
  /** The coin is, but not on this network. */
  'network_unsupported',
  /** Below the pair's minimum (the item carries the limits in both units). */
  'amount_below_min',
  /** Above the pair's maximum (the item carries the limits in both units). */
  'amount_above_max',
  /** Not an amount: not a positive decimal, an exponent in a string, more decimals than the coin's. */
  'amount_invalid',
  /** Not an address of the network (format, checksum). */
  'address_invalid',
  /** The network routes by memo or destination tag and none was given. */
  'memo_required',
  /** A memo that is malformed, or given where the network uses none. */
  'memo_invalid',
  /** The hot wallet cannot pay out this currency, or not this much, now (docs/contract.md §11.7). */
  'insufficient_liquidity',
] as const;

/** Every code an item of `errors` may carry: the top-level codes and the item-only ones. */
export const ERROR_ITEM_CODES = [...(Object.keys(ERROR_STATUS) as (keyof typeof ERROR_STATUS)[]), ...ITEM_ONLY_CODES] as const;
export type ErrorItemCode = (typeof ERROR_ITEM_CODES)[number];

/**
 * One problem of a request (docs/contract.md §10.4). `field` is the body or query field it is about (a
 * nested one as `a.b`), null when it is about the request as a whole. Amount items add the pair
 * limits: min_amount and max_amount in coin_from, min_amount_to and max_amount_to in coin_to.
 */
export interface ErrorItem {
  code: ErrorItemCode;
  field: string | null;
  detail: string;
  [extra: string]: unknown;
}

export type ErrorCode = keyof typeof ERROR_STATUS;

/** An expected failure that reaches the client as-is: its message is safe to show. */
export class ApiError extends Error {
  readonly status: number;
  /** Every problem found (docs/contract.md §10.4); one item of the top-level code without a field when not given. */
  readonly errors: readonly ErrorItem[];
  constructor(
    readonly code: ErrorCode,
    detail: string,
    /** Extra documented body fields, e.g. min_amount and max_amount. */
    readonly extra?: Readonly<Record<string, unknown>>,
    /** Response headers that go with the error, e.g. Retry-After on a 409 still in progress. */
    readonly headers?: Readonly<Record<string, string>>,
    errors?: readonly ErrorItem[],
  ) {
    super(detail);
    this.name = 'ApiError';
    this.status = ERROR_STATUS[code];
    this.errors = errors !== undefined && errors.length > 0 ? errors : [{ code, field: null, detail }];
  }

  /**
   * One problem of one field: the top-level `code` (what v1.1 answered) and the item's own code.
   * `extra` goes on both (the amount limits: v1.1 put them at the top, v1.2 on the item too).
   */
  static field(
    code: ErrorCode,
    item: { code: ErrorItemCode; field: string | null },
    detail: string,
    extra?: Readonly<Record<string, unknown>>,
  ): ApiError {
    return new ApiError(code, detail, extra, undefined, [{ code: item.code, field: item.field, detail, ...extra }]);
  }
}

export interface ErrorBody {
  detail: string;
  code: ErrorCode;
  errors: readonly ErrorItem[];
  [field: string]: unknown;
}

/** An amount item's limits (and v1.1's top-level ones): the pair's, in both units. */
const amountLimits = {
  min_amount: { type: 'number', description: 'amount items: the pair minimum, in coin_from' },
  max_amount: { type: 'number', description: 'amount items: the pair maximum, in coin_from' },
  min_amount_to: { type: 'number', description: 'amount items: the payout at min_amount, in coin_to' },
  max_amount_to: { type: 'number', description: 'amount items: the payout at max_amount, in coin_to' },
} as const;

/** JSON schema of one item of `errors` (docs/contract.md §10.4). */
export const errorItemSchema = {
  type: 'object',
  required: ['code', 'field', 'detail'],
  properties: {
    code: {
      type: 'string',
      enum: ERROR_ITEM_CODES,
      description:
        'What is wrong, from a closed list: the top-level codes, and currency_unsupported, network_unsupported, ' +
        'amount_below_min, amount_above_max, amount_invalid, address_invalid, memo_required, memo_invalid, insufficient_liquidity.',
    },
    field: {
      type: ['string', 'null'],
      description: 'The body or query field the problem is about (nested as a.b), null for the request as a whole.',
    },
    detail: { type: 'string', description: 'The problem, in words for a person.' },
    ...amountLimits,
  },
  additionalProperties: true,
} as const;

/** JSON schema of the envelope, reused by every route's documented error responses. */
export const errorBodySchema = {
  $id: 'Error',
  type: 'object',
  required: ['detail', 'code', 'errors'],
  properties: {
    detail: { type: 'string', description: 'What went wrong, in words for a person: the first problem found.' },
    code: {
      type: 'string',
      enum: Object.keys(ERROR_STATUS),
      description: 'Stable machine-readable code of the outcome (the status); as v1.1 answered the same request.',
    },
    errors: {
      type: 'array',
      minItems: 1,
      description: 'v1.2: every problem found in the request, each with its own code and field.',
      items: errorItemSchema,
    },
  },
  additionalProperties: true,
} as const;

/** The envelope of an amount error (422 amount_out_of_range): the pair limits at the top too, as in v1.1. */
export const amountErrorBodySchema = {
  type: 'object',
  required: ['detail', 'code', 'errors'],
  properties: {
    ...errorBodySchema.properties,
    ...amountLimits,
  },
  additionalProperties: true,
} as const;
