/**
 * When to try a request again, and after how long. A retry is sent only where it cannot do a
 * thing twice: a GET, or an order create (its Idempotency-Key makes the server answer a repeat
 * with the first order). A 429 is retried for any call: the server refuses it before running it.
 */

export interface RetryOptions {
  /** Tries after the first; 0 disables retries. Default 3. */
  retries: number;
  /** The first back-off, in ms; each further one doubles, with full jitter. Default 500. */
  baseDelayMs: number;
  /**
   * The longest wait, in ms (default 60 000: a rate-limit window, so a 429's Retry-After is
   * waited for). A Retry-After longer than this is not waited for: the RateLimitError is thrown
   * with its `retryAfterMs`, for the caller to decide.
   */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { retries: 3, baseDelayMs: 500, maxDelayMs: 60_000 };

/** Statuses worth another try: rate limited, or the server (or a proxy before it) failing. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 500 || status === 502 || status === 503 || status === 504;
}

/** Retry-After (seconds, or an HTTP date) in ms from `now`; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential back-off with full jitter for try number `attempt` (0 = the first retry). */
export function backoffMs(attempt: number, options: RetryOptions, random: () => number): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}

/** A wait that ends early, rejecting, when the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) return reject(signal.reason as Error);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
