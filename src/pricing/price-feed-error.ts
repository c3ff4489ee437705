/**
 * Why a feed produced no usable answer. Kept coarse on purpose: it is a metric label and the thing
 * an operator greps for, the detail is in the message.
 */
export type PriceFeedErrorKind =
  /** The per-request timeout elapsed before a full answer arrived. */
  | 'timeout'
  /** The caller's AbortSignal fired (e.g. the service is stopping). */
  | 'aborted'
  /** DNS, connection refused, TLS, reset: no HTTP response at all. */
  | 'network'
  /** An HTTP response with a non-2xx status. */
  | 'http_status'
  /** The body exceeded the byte cap; a price feed answer is small, a huge one is not a price feed. */
  | 'too_large'
  /** Not JSON, or JSON of the wrong shape, or missing what is needed to price anything. */
  | 'malformed';

/** The single error type a PriceSource rejects with; callers catch it and carry on. */
export class PriceFeedError extends Error {
  override readonly name = 'PriceFeedError';
  /** HTTP status, when kind is 'http_status'. */
  readonly status: number | undefined;

  constructor(
    /** Name of the PriceSource that failed. */
    readonly source: string,
    readonly kind: PriceFeedErrorKind,
    message: string,
    options: { cause?: unknown; status?: number } = {},
  ) {
    super(`${source}: ${message}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = options.status;
  }
}
