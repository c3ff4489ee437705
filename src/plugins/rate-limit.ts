import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter } from 'prom-client';
import type { Clock } from '../clock.js';
import {
  RATE_LIMIT_WINDOW_SECONDS,
  createRateLimiter,
  type RateLimitDecision,
  type RateLimiter,
  type StoreFailure,
} from '../services/rate-limiter.js';
import { sendError } from './error-handler.js';
import type { Metrics } from '../metrics.js';

/** Spec §8: requests per minute per client address without a (valid) key. */
export const PUBLIC_RATE_LIMIT_PER_MINUTE = 60;

/** How long app start waits for the rate limiter's store (Redis) to connect. */
const STARTUP_CONNECT_MS = 1000;

/**
 * Not limited: the operator API (spec: admin excepted; it has its own token) and the
 * infrastructure endpoints, which load balancers, orchestrators and Prometheus poll from a few
 * fixed addresses and which must keep answering exactly when traffic is heavy. Matched on the
 * route template, so only routes that really exist here are exempt (a 404 under /admin counts).
 */
const EXEMPT_ROUTES: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);
function isExempt(request: FastifyRequest): boolean {
  const route = request.routeOptions.url;
  return route !== undefined && (route.startsWith('/admin/') || EXEMPT_ROUTES.has(route));
}

export interface RateLimitOptions {
  metrics: Metrics;
  /** A ready limiter (tests); otherwise one is made from `redisUrl` (Redis) or memory. */
  limiter?: RateLimiter;
  /** config.redisUrl: set means one budget shared by all processes through Redis. */
  redisUrl?: string;
  /** Time of the memory store (the app's clock). */
  clock: Clock;
  publicLimit?: number;
}

/** The bucket a request counts against: its valid key, or else its client address. */
interface Bucket {
  /** Policy name in the RateLimit-Policy / RateLimit fields. */
  policy: 'ip' | 'key';
  id: string;
  limit: number;
}

export interface RateLimits {
  /**
   * Whether the request's client address has used its whole budget (so this request will be
   * answered 429 by the address's bucket), without counting it. The caller identification asks
   * before it reads an unknown key id from the database: such a key counts against the address,
   * so an address over its budget learns nothing and costs no read.
   */
  addressExhausted(request: FastifyRequest): boolean | Promise<boolean>;
  /** Adds the counting `onRequest` hook; call it after the caller identification's hook. */
  install(): void;
}

/**
 * Rate limiting of every partner-facing request, in `onRequest` right after the caller is
 * identified (so before body parsing, auth checks and handlers: a limited client costs little).
 *
 * - A valid key counts against its own budget (`partners.rate_limit_per_minute`), per key id.
 * - No key, or a key that failed authentication (`caller.kind === 'rejected'`), counts against
 *   the client address: `request.ip`, which follows X-Forwarded-For only as TRUST_PROXY allows.
 *   A key id this process has not seen (neither cached nor remembered as unknown) is not read
 *   from the database while that address is over its budget (`addressExhausted`): the request
 *   is answered 429 on the address's bucket, so guessing key ids costs no database reads.
 *
 * Response fields, on every limited response (errors included):
 * - `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (seconds until the window ends):
 *   the contract's fields (spec §8, DESIGN §3), as in draft-ietf-httpapi-ratelimit-headers-06.
 * - `RateLimit-Policy` and `RateLimit` in the syntax of draft-ietf-httpapi-ratelimit-headers-10
 *   (the current revision; -08 and -09 use the same syntax): Structured Field Lists whose items
 *   are a policy name with parameters, `RateLimit-Policy: "ip";q=60;w=60` (quota, window in
 *   seconds) and `RateLimit: "ip";r=59;t=42` (remaining, seconds until reset). The older
 *   `limit=60, remaining=59, reset=42` Dictionary form was draft-07's and is not used.
 * - 429 adds `Retry-After` (seconds) and the `{detail, code: "rate_limited"}` body.
 *
 * When the store fails (Redis down or slow) the request passes unchecked (fail open), is
 * counted in `rate_limiter_failures_total{reason}` and carries only `RateLimit-Policy` and
 * `RateLimit-Limit`: the budget is known, the current count is not.
 */
export function createRateLimits(app: FastifyInstance, options: RateLimitOptions): RateLimits {
  const publicLimit = options.publicLimit ?? PUBLIC_RATE_LIMIT_PER_MINUTE;
  const limiter =
    options.limiter ?? createRateLimiter({ redisUrl: options.redisUrl, clock: options.clock, log: app.log });
  const failures = new Counter<'reason'>({
    name: 'rate_limiter_failures_total',
    help: 'Requests let through unchecked because the rate limiter store (Redis) failed or was slow, by reason.',
    labelNames: ['reason'],
    registers: [options.metrics.registry],
  });
  for (const reason of ['not_connected', 'timeout', 'error', 'circuit_open'] satisfies StoreFailure[]) {
    failures.inc({ reason }, 0);
  }
  const addressBucket = (request: FastifyRequest): Bucket => ({ policy: 'ip', id: `ip:${request.ip}`, limit: publicLimit });

  /** Writes the fields; true when the request may go on (false: a 429 was sent). */
  function apply(reply: FastifyReply, bucket: Bucket, decision: RateLimitDecision): boolean {
    reply.header('RateLimit-Policy', `"${bucket.policy}";q=${bucket.limit};w=${RATE_LIMIT_WINDOW_SECONDS}`);
    reply.header('RateLimit-Limit', String(bucket.limit));
    if (decision.status === 'unchecked') {
      failures.inc({ reason: decision.reason });
      return true;
    }
    const reset = setStateHeaders(reply, bucket, decision);
    if (decision.status === 'allowed') return true;
    reply.header('Retry-After', String(reset));
    sendError(
      reply,
      'rate_limited',
      `rate limit exceeded: ${bucket.limit} requests per ${RATE_LIMIT_WINDOW_SECONDS} seconds; retry in ${reset} s`,
    );
    return false;
  }

  function install(): void {
    // Callback style: the memory store decides synchronously, so most requests make no promise
    // here. After a 429 is sent, done() is not called: the reply is already on its way.
    app.addHook('onRequest', (request, reply, done) => {
      if (isExempt(request)) return done();
      const caller = request.caller;
      const bucket: Bucket =
        caller?.kind === 'partner'
          ? { policy: 'key', id: `key:${caller.keyId}`, limit: caller.partner.rate_limit_per_minute }
          : addressBucket(request);
      const decision = limiter.consume(bucket.id, bucket.limit);
      if (!(decision instanceof Promise)) {
        if (apply(reply, bucket, decision)) done();
        return;
      }
      decision.then((settled) => {
        if (apply(reply, bucket, settled)) done();
      }, done);
    });
    // A process starting next to a healthy Redis counts from its first request; a dead Redis
    // delays the start by at most this bound (then requests pass unchecked until it answers).
    app.addHook('onReady', () => limiter.connected(STARTUP_CONNECT_MS));
    app.addHook('onClose', () => limiter.close());
  }

  return {
    addressExhausted(request) {
      if (isExempt(request)) return false;
      const bucket = addressBucket(request);
      return limiter.exhausted(bucket.id, bucket.limit);
    },
    install,
  };
}

/** Writes the current-state fields; returns the seconds until reset (at least 1). */
function setStateHeaders(
  reply: FastifyReply,
  bucket: Bucket,
  decision: Extract<RateLimitDecision, { remaining: number }>,
): number {
  // Whole seconds, rounded up so a client that waits that long finds a fresh window.
  const reset = Math.max(1, Math.ceil(decision.resetMs / 1000));
  reply.header('RateLimit-Remaining', String(decision.remaining));
  reply.header('RateLimit-Reset', String(reset));
  reply.header('RateLimit', `"${bucket.policy}";r=${decision.remaining};t=${reset}`);
  return reset;
}
