/**
 * Fixed-window request counting behind one small interface, with an in-process store and a
 * Redis store (shared by every process pointing at the same Redis).
 *
 * Window semantics, the same in both stores: a bucket's window opens with its first request
 * and lasts `windowSeconds`; every request in it counts (rejected ones too); when it ends the
 * bucket is whole again.
 *
 * The Redis store never throws and never makes a request wait on a dead or slow Redis: a call
 * that cannot be answered within `timeoutMs` comes back `unchecked`, and the caller lets the
 * request through (fail OPEN). Request budgets have deliberately no in-process "insurance"
 * limiter: a per-process count during an outage would hand every process its own budget (N
 * times the limit) while looking authoritative; letting requests through, counted in metrics and
 * logged, is the honest degradation the design asks for. The security throttles (failed admin
 * tokens, cabinet sign-ins) are the exception: for them an unchecked attempt falls back to an
 * in-process count (plugins/rate-limit.ts, `attempts`), since unlimited guessing is worse than
 * N budgets.
 */
export interface RateLimiter {
  /** Counts one request against `bucket`, whose budget per window is `limit`. Never rejects. */
  /** The memory store answers synchronously (no promise per request); Redis with a promise. */
  consume(bucket: string, limit: number): RateLimitDecision | Promise<RateLimitDecision>;
  /** Takes back one request counted in `bucket`'s current window (an attempt that succeeded). */
  refund(bucket: string, limit: number): void | Promise<void>;
  /**
   * Resolves once the store can answer, when it has failed to connect, or after `withinMs`,
   * whichever comes first; never rejects (a store that is down does not stop the app starting).
   */
  connected(withinMs: number): Promise<void>;
  /** Releases connections; the limiter is unusable afterwards. */
  close(): Promise<void>;
  /**
   * Whether the shared store (Redis) answers a PING within `timeoutMs`; absent for the in-process
   * store, which has nothing to reach (readiness reports Redis only when REDIS_URL is set).
   */
  ping?(timeoutMs: number): Promise<boolean>;
}

export type RateLimitDecision =
  | {
      status: 'allowed' | 'limited';
      limit: number;
      /** Requests still allowed in the current window (0 when limited). */
      remaining: number;
      /** Milliseconds until the current window ends. */
      resetMs: number;
    }
  /** The store did not answer: the request was not counted. */
  | { status: 'unchecked'; reason: StoreFailure };

/**
 * `not_connected`: no usable connection (refused, closed, or connected but never ready);
 * `timeout`: no answer within the budget; `error`: the store answered with an error;
 * `circuit_open`: skipped without asking, shortly after a failure (see `retryAfterFailureMs`).
 */
export type StoreFailure = 'not_connected' | 'timeout' | 'error' | 'circuit_open';

/** The spec's window: budgets are per minute. */
export const RATE_LIMIT_WINDOW_SECONDS = 60;
