/**
 * The closed set of error codes and the one HTTP status each maps to. Every error the API
 * answers is `{"detail": "...", "code": "..."}` (plus documented extra fields such as the
 * pair limits on amount errors), built by the error handler in plugins/error-handler.ts.
 */
export const ERROR_STATUS = {
  bad_request: 400,
  invalid_json: 400,
  unauthorized: 401,
  invalid_signature: 401,
  forbidden: 403,
  /** DESIGN §10.8: the order's X-End-User-IP is in the operator's blocklist (IP_BLOCKLIST, REGION_BLOCKLIST). */
  region_restricted: 403,
  /** DESIGN §10.9: a client key (pk_client_…) used where only a full key may go. */
  scope: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  /** DESIGN §10.8: the partner's mode already has an order with this external_id (its id in `order_id`). */
  external_id_conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  amount_out_of_range: 422,
  /** DESIGN §7.1: the pair cannot be quoted now (inactive, deposit/withdraw off, no fresh price, same currency). */
  pair_unavailable: 422,
  /** DESIGN §7.1: a fixed quote_id that is expired, used, or does not match the order. */
  quote_invalid: 422,
  /** Issue 12: the partner already has as many orders awaiting a deposit as it may (max_open_orders). */
  open_orders_limit: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** An expected failure that reaches the client as-is: its message is safe to show. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    detail: string,
    /** Extra documented body fields, e.g. min_amount and max_amount. */
    readonly extra?: Readonly<Record<string, unknown>>,
    /** Response headers that go with the error, e.g. Retry-After on a 409 still in progress. */
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(detail);
    this.name = 'ApiError';
    this.status = ERROR_STATUS[code];
  }
}

export interface ErrorBody {
  detail: string;
  code: ErrorCode;
  [field: string]: unknown;
}

/** JSON schema of the envelope, reused by every route's documented error responses. */
export const errorBodySchema = {
  $id: 'Error',
  type: 'object',
  required: ['detail', 'code'],
  properties: {
    detail: { type: 'string', description: 'What went wrong, in words for a person.' },
    code: { type: 'string', enum: Object.keys(ERROR_STATUS), description: 'Stable machine-readable code.' },
  },
  additionalProperties: true,
} as const;
