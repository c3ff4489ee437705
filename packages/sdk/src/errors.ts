/**
 * Typed errors. Every error the API answers is `{"detail", "code", "errors"}` with the status
 * the contract names (docs/contract.md §10.4); `errors` (v1.2) lists every problem of the request, each with its own code and
 * field; amount errors add the pair's limits in both units. The class says what a caller can do
 * about it (fix the input, fix the key, wait, retry), the fields say the rest.
 */
import type { DecimalString, ErrorCode, ErrorItem, Order } from './types.js';

/** An error response of the API. */
export class PartnerApiError extends Error {
  override readonly name: string = 'PartnerApiError';
  /** The stable machine-readable code (the closed set of the document's Error schema). */
  readonly code: ErrorCode;
  /** What went wrong, in words for a person. */
  readonly detail: string;
  /** The request id the server answered with (X-Request-Id), to quote to support. */
  readonly requestId: string | undefined;
  /** Amount errors: the pair's limits, in coin_from. */
  readonly min_amount: DecimalString | undefined;
  readonly max_amount: DecimalString | undefined;
  /** Amount errors (v1.1): the payouts at those limits, in coin_to. */
  readonly min_amount_to: DecimalString | undefined;
  readonly max_amount_to: DecimalString | undefined;
  /**
   * v1.2: every problem found in the request, each `{code, field, detail}` (field: the body or
   * query field, or null), amount items with the limits; e.g. a bad recipient and a bad refund
   * address are two items. An answer without the list (not from the API) gives one item of `code`.
   */
  readonly errors: readonly ErrorItem[];

  constructor(
    /** HTTP status. */
    readonly status: number,
    /** The whole error body, amounts as decimal strings. */
    readonly body: Readonly<Record<string, unknown>>,
    requestId?: string,
  ) {
    const detail = typeof body.detail === 'string' ? body.detail : `HTTP ${status}`;
    super(detail);
    this.detail = detail;
    this.code = (typeof body.code === 'string' ? body.code : 'internal') as ErrorCode;
    this.requestId = requestId;
    const text = (field: string): string | undefined => (typeof body[field] === 'string' ? body[field] : undefined);
    this.min_amount = text('min_amount');
    this.max_amount = text('max_amount');
    this.min_amount_to = text('min_amount_to');
    this.max_amount_to = text('max_amount_to');
    const items = Array.isArray(body.errors) ? (body.errors as unknown[]).filter(isErrorItem) : [];
    this.errors = items.length > 0 ? items : [{ code: this.code, field: null, detail }];
  }
}

function isErrorItem(item: unknown): item is ErrorItem {
  if (item === null || typeof item !== 'object') return false;
  const { code, field, detail } = item as Record<string, unknown>;
  return typeof code === 'string' && typeof detail === 'string' && (field === null || typeof field === 'string');
}

/** A subclass of PartnerApiError told apart by its name alone (its status or code is what differs). */
export interface PartnerApiErrorClass<Name extends string> {
  new (status: number, body: Readonly<Record<string, unknown>>, requestId?: string): PartnerApiError & { readonly name: Name };
  readonly prototype: PartnerApiError & { readonly name: Name };
}

/**
 * The class for one kind of API error: a real subclass (so `instanceof` works, and narrows to
 * it in TypeScript), its `name` (on instances and on the class) written out rather than taken
 * from the class, which a minifier would rename.
 */
function apiErrorClass<const Name extends string>(name: Name): PartnerApiErrorClass<Name> {
  const ErrorClass = class extends PartnerApiError {
    override readonly name: Name = name;
  };
  Object.defineProperty(ErrorClass, 'name', { value: name });
  return ErrorClass;
}

/** 400: the request is malformed or a field is invalid (an address, an unknown coin). */
export const BadRequestError = apiErrorClass('BadRequestError');
export type BadRequestError = InstanceType<typeof BadRequestError>;
/** 401: no key, an invalid or revoked key, or a signature the server refused (code `invalid_signature`). */
export const AuthenticationError = apiErrorClass('AuthenticationError');
export type AuthenticationError = InstanceType<typeof AuthenticationError>;
/** 403: the partner account is not active, or the action is not permitted. */
export const PermissionError = apiErrorClass('PermissionError');
export type PermissionError = InstanceType<typeof PermissionError>;
/** 404: no such order for this partner. */
export const NotFoundError = apiErrorClass('NotFoundError');
export type NotFoundError = InstanceType<typeof NotFoundError>;
/** 409: the order is not in a state that allows this (a second sandbox deposit, an action too late). */
export const ConflictError = apiErrorClass('ConflictError');
export type ConflictError = InstanceType<typeof ConflictError>;
/** 422 `amount_out_of_range`: outside the pair's limits, given in both units (`min_amount`/`max_amount`, `min_amount_to`/`max_amount_to`). */
export const AmountOutOfRangeError = apiErrorClass('AmountOutOfRangeError');
export type AmountOutOfRangeError = InstanceType<typeof AmountOutOfRangeError>;
/** 422 `pair_unavailable`: the pair cannot be quoted now (inactive, disabled, no fresh price). */
export const PairUnavailableError = apiErrorClass('PairUnavailableError');
export type PairUnavailableError = InstanceType<typeof PairUnavailableError>;
/** 422 `quote_invalid`: the fixed quote is expired, used, or does not match the order. */
export const QuoteInvalidError = apiErrorClass('QuoteInvalidError');
export type QuoteInvalidError = InstanceType<typeof QuoteInvalidError>;
/** 422, other codes (`open_orders_limit`, `unprocessable`). */
export const UnprocessableError = apiErrorClass('UnprocessableError');
export type UnprocessableError = InstanceType<typeof UnprocessableError>;
/** 5xx: the server failed or is unavailable; idempotent calls were retried before this. */
export const ServerError = apiErrorClass('ServerError');
export type ServerError = InstanceType<typeof ServerError>;

/** 429: over the rate limit; `retryAfterMs` from Retry-After when the server sent one. */
export class RateLimitError extends PartnerApiError {
  override readonly name = 'RateLimitError';
  constructor(
    status: number,
    body: Readonly<Record<string, unknown>>,
    requestId: string | undefined,
    readonly retryAfterMs: number | undefined,
  ) {
    super(status, body, requestId);
  }
}

/** The request got no HTTP answer (connection refused or reset, DNS, timeout). */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
}

/** Waiting for an order's status ended without it (timeout, or a final status not waited for). */
export class WaitForStatusError extends Error {
  override readonly name = 'WaitForStatusError';
  constructor(
    message: string,
    /** The order as last read. */
    readonly order: Order,
  ) {
    super(message);
  }
}

const BY_CODE: Partial<Record<string, PartnerApiErrorClass<string>>> = {
  amount_out_of_range: AmountOutOfRangeError,
  pair_unavailable: PairUnavailableError,
  quote_invalid: QuoteInvalidError,
};
const BY_STATUS: Partial<Record<number, PartnerApiErrorClass<string>>> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableError,
};

/** The typed error for an error response. */
export function errorFromResponse(status: number, body: Record<string, unknown>, requestId: string | undefined, retryAfterMs: number | undefined): PartnerApiError {
  if (status === 429) return new RateLimitError(status, body, requestId, retryAfterMs);
  if (status >= 500) return new ServerError(status, body, requestId);
  const code = typeof body.code === 'string' ? body.code : '';
  const ErrorClass = BY_CODE[code] ?? BY_STATUS[status] ?? PartnerApiError;
  return new ErrorClass(status, body, requestId);
}
