import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter } from 'prom-client';
import type { Clock } from '../clock.js';
import { createRateLimiter } from '../services/rate-limiter/factory.js';
import type { RedisTarget } from '../infrastructure/redis-client.js';
import { LeasedRateLimiter } from '../services/rate-limiter/leased-store.js';
import { MemoryRateLimiter } from '../services/rate-limiter/memory-store.js';
import { RedisRateLimiter } from '../services/rate-limiter/redis-store.js';
import { RATE_LIMIT_WINDOW_SECONDS, type RateLimitDecision, type RateLimiter, type StoreFailure } from '../services/rate-limiter/rate-limiter.js';
import { sendError } from './error-handler.js';
import type { Metrics } from '../metrics.js';
import type { PartnerRow } from '../db/schema/partners.js';
import type { Caller } from './partner-auth.js';

/** Spec §8: requests per minute per client address without a (valid) key. */
export const PUBLIC_RATE_LIMIT_PER_MINUTE = 60;

/** How long app start waits for the rate limiter's store (Redis) to connect. */
const STARTUP_CONNECT_MS = 1000;

/**
 * Not limited: the operator API (it has its own token and its failures their own throttle) and the
 * infrastructure endpoints, which load balancers, orchestrators and Prometheus poll from a few
 * fixed addresses and which must keep answering exactly when traffic is heavy. Matched on the
 * route template, so only routes that really exist here are exempt (a 404 under /admin counts).
 * The partner cabinet's pages (/cabinet) are for people, not API clients: a page and its
 * stylesheet and script are several requests, and a team behind one address would share 60 a
 * minute; its own throttles guard what can be guessed (sign-in per account and per address,
 * src/routes/cabinet), and every other page needs a session.
 */
const EXEMPT_ROUTES: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);
function isExempt(request: FastifyRequest): boolean {
  // A path that starts with /api/ as sent can only have matched an /api/ route (the router
  // decodes %XX escapes, never these five literal characters), and no /api/ route is exempt:
  // the API's requests skip `routeOptions`, an object Fastify builds on every read.
  if (request.url.startsWith('/api/')) return false;
  const route = request.routeOptions.url;
  return route !== undefined && (route.startsWith('/admin/') || route === '/cabinet' || route.startsWith('/cabinet/') || EXEMPT_ROUTES.has(route));
}

export interface RateLimitOptions {
  metrics: Metrics;
  /** A ready limiter (tests); otherwise one is made from `redis` (Redis) or memory. */
  limiter?: RateLimiter;
  /** From REDIS_URL (and REDIS_SENTINELS): set means one budget shared by all processes through Redis. */
  redis?: RedisTarget | undefined;
  /** config.rateLimitRedisTimeoutMs: a request's longest wait on Redis before it passes unchecked. */
  redisTimeoutMs?: number;
  /** Time of the memory store (the app's clock). */
  clock: Clock;
  publicLimit?: number;
  /** config.limits.partnerKeysBudget: a partner's keys together get this many keys' budgets. */
  partnerKeysBudget: number;
}

/** A bucket a request counts against: its valid key and that key's partner, or else its client address. */
interface Bucket {
  /** Policy name in the RateLimit-Policy / RateLimit fields. */
  policy: 'ip' | 'key' | 'partner';
  id: string;
  limit: number;
}

/**
 * The buckets a request counts against and what of its fields depends only on them (the
 * RateLimit-Policy value, each budget as text): made once per key (or once for every client
 * address), not per request.
 */
interface Plan {
  buckets: readonly Bucket[];
  policy: string;
  limits: readonly string[];
}

function planOf(buckets: readonly Bucket[]): Plan {
  return {
    buckets,
    policy: buckets.map((bucket) => `"${bucket.policy}";q=${bucket.limit};w=${RATE_LIMIT_WINDOW_SECONDS}`).join(', '),
    limits: buckets.map((bucket) => String(bucket.limit)),
  };
}

/** Keys whose plans are kept; past it the map starts again (a plan is cheap to remake). */
const PLANS_KEPT = 10_000;


export interface RateLimits {
  /**
   * Failed API key checks per client address (PUBLIC_RATE_LIMIT_PER_MINUTE a minute): the caller
   * identification counts each key it reads from the database and gives the count back when the
   * key is valid (plugins/partner-auth.ts). It bounds guessing without judging a valid key by the
   * address's request budget.
   */
  readonly keyChecks: AttemptLimit;
  /**
   * A budget of attempts per client address at something that can fail (the operator token),
   * in the same store as the request budgets (so shared by all processes through Redis).
   */
  attempts(name: string, perMinute: number): AttemptLimit;
  /** Adds the counting `onRequest` hook; call it after the caller identification's hook. */
  install(): void;
  /** Pings the shared store (Redis) within `timeoutMs`; undefined when counting is in-process (no REDIS_URL). */
  readonly pingStore: ((timeoutMs: number) => Promise<boolean>) | undefined;
  /**
   * Spends one request of a partner's shared budget (the `partner` bucket all its keys count
   * against: `perKeyLimit` times PARTNER_RATE_LIMIT_KEYS a minute) for something done outside
   * the API on the partner's behalf: the cabinet's actions, so a session is no
   * way around the partner's rate limit. `allowed: false`: over budget, answer 429.
   */
  partnerRequest(partnerId: string, perKeyLimit: number): AttemptDecision | Promise<AttemptDecision>;
}

/**
 * Attempts per address: every attempt is counted before it is tried and given back when it
 * succeeds, so only failures use the budget, and a burst of parallel guesses cannot all be
 * tried before the first failures are counted.
 */
export interface AttemptLimit {
  /** Counts an attempt from `address`; `allowed: false` means answer 429 without trying. */
  attempt(address: string): AttemptDecision | Promise<AttemptDecision>;
  /** The attempt succeeded: it no longer counts. */
  succeeded(address: string): void;
}

export type AttemptDecision =
  /** `remaining`: failures still allowed in the window (undefined when the store did not answer). */
  | { allowed: true; remaining: number | undefined }
  | { allowed: false; retryAfterSeconds: number };

/**
 * Rate limiting of every partner-facing request, in `onRequest` right after the caller is
 * identified (so before body parsing, auth checks and handlers: a limited client costs little).
 *
 * - A valid key counts against two budgets: its own (`partners.rate_limit_per_minute`, per key
 *   id) and its partner's, shared by all the partner's keys (`partnerKeysBudget` times the
 *   key's, PARTNER_RATE_LIMIT_KEYS): more keys add no budget. Both count every request; either
 *   being over answers 429.
 * - No key, or a key that failed authentication (`caller.kind === 'rejected'`), counts against
 *   the client address: `request.ip`, which follows X-Forwarded-For only as TRUST_PROXY allows.
 *   A valid key never counts against, nor is refused by, the address's budget: anonymous traffic
 *   from a partner's address cannot lock its keys out. Guessing is bounded by the
 *   address's budget of failed key checks (`keyChecks`): past it, a key id this process has not
 *   seen is not read and the request is answered 429 on the address's bucket.
 *
 * Response fields, on every limited response (errors included):
 * - `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (seconds until the window ends):
 *   the contract's fields (docs/contract.md §3), as in draft-ietf-httpapi-ratelimit-headers-06;
 *   with two budgets, those of the one with fewer requests left (the one that binds).
 * - `RateLimit-Policy` and `RateLimit` in the syntax of draft-ietf-httpapi-ratelimit-headers-10
 *   (the current revision; -08 and -09 use the same syntax): Structured Field Lists whose items
 *   are a policy name with parameters, `RateLimit-Policy: "ip";q=60;w=60` (quota, window in
 *   seconds) and `RateLimit: "ip";r=59;t=42` (remaining, seconds until reset); a key's request
 *   lists both of its policies, `"key";q=600;w=60, "partner";q=1200;w=60`. The older
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
    options.limiter ?? createRateLimiter({ redis: options.redis, timeoutMs: options.redisTimeoutMs, clock: options.clock, log: app.log });
  // Request budgets in Redis are taken a block at a time (docs/adr/0062-rate-limit-leases.md): no
  // round trip per request. The security throttles below count every attempt in the store.
  const requests: RateLimiter = limiter instanceof RedisRateLimiter ? new LeasedRateLimiter(limiter) : limiter;
  const failures = new Counter<'reason'>({
    name: 'rate_limiter_failures_total',
    help: 'Requests let through unchecked because the rate limiter store (Redis) failed or was slow, by reason.',
    labelNames: ['reason'],
    registers: [options.metrics.registry],
  });
  for (const reason of ['not_connected', 'timeout', 'error', 'circuit_open'] satisfies StoreFailure[]) {
    failures.inc({ reason }, 0);
  }
  // The address bucket's id is the address; its policy and budget are the same for everyone.
  const addressPlan = planOf([{ policy: 'ip', id: 'ip:', limit: publicLimit }]);
  /** Per key id: its plan, for the partner row it was made from (a changed budget is a new row). */
  const keyPlans = new Map<string, { partner: PartnerRow; plan: Plan }>();

  /** The plan of a request with a valid key: its key's and its partner's buckets. */
  function keyPlan(caller: Extract<Caller, { kind: 'partner' }>): Plan {
    const kept = keyPlans.get(caller.keyId);
    if (kept !== undefined && kept.partner === caller.partner) return kept.plan;
    const perKey = caller.partner.rate_limit_per_minute;
    const plan = planOf([{ policy: 'key', id: `key:${caller.keyId}`, limit: perKey }, partnerBucket(caller.partner.id, perKey)]);
    if (keyPlans.size >= PLANS_KEPT) keyPlans.clear();
    keyPlans.set(caller.keyId, { partner: caller.partner, plan });
    return plan;
  }
  /** The budget all of a partner's keys (and its cabinet's actions) share. */
  function partnerBucket(partnerId: string, perKey: number): Bucket {
    return { policy: 'partner', id: `partner:${partnerId}`, limit: perKey * options.partnerKeysBudget };
  }

  /**
   * Writes the fields; true when the request may go on (false: a 429 was sent). Loops rather
   * than arrays of checks: this runs on every request, and only a 429 needs more than the
   * binding budget.
   */
  function apply(reply: FastifyReply, plan: Plan, decisions: readonly RateLimitDecision[]): boolean {
    reply.header('RateLimit-Policy', plan.policy);
    // The binding budget: the fewest requests left, then the longest wait.
    let binding = -1;
    let bound: Extract<RateLimitDecision, { remaining: number }> | undefined;
    let fields = '';
    let anyLimited = false;
    for (let i = 0; i < decisions.length; i++) {
      const decision = decisions[i]!;
      if (decision.status === 'unchecked') {
        failures.inc({ reason: decision.reason });
        continue;
      }
      if (bound === undefined || decision.remaining < bound.remaining || (decision.remaining === bound.remaining && decision.resetMs > bound.resetMs)) {
        binding = i;
        bound = decision;
      }
      fields += `${fields === '' ? '' : ', '}"${plan.buckets[i]!.policy}";r=${decision.remaining};t=${resetSeconds(decision)}`;
      if (decision.status === 'limited') anyLimited = true;
    }
    reply.header('RateLimit-Limit', plan.limits[binding < 0 ? 0 : binding]!);
    if (bound === undefined) return true;
    reply.header('RateLimit', fields);
    const reset = resetSeconds(bound);
    reply.header('RateLimit-Remaining', String(bound.remaining));
    reply.header('RateLimit-Reset', String(reset));
    if (!anyLimited) return true;
    const limited = plan.buckets.flatMap((bucket, i) => {
      const decision = decisions[i]!;
      return decision.status === 'limited' ? [{ bucket, decision }] : [];
    });
    const retry = Math.max(...limited.map(({ decision }) => resetSeconds(decision)));
    const over = limited.map(({ bucket }) => `${bucket.limit} requests per ${RATE_LIMIT_WINDOW_SECONDS} seconds${bucket.policy === 'partner' ? ' for all keys of the partner' : ''}`);
    reply.header('Retry-After', String(retry));
    sendError(reply, 'rate_limited', `rate limit exceeded: ${over.join(' and ')}; retry in ${retry} s`);
    return false;
  }

  function install(): void {
    // Callback style: the memory store decides synchronously, so most requests make no promise
    // here. After a 429 is sent, done() is not called: the reply is already on its way.
    app.addHook('onRequest', (request, reply, done) => {
      if (isExempt(request)) return done();
      const caller = request.caller;
      let plan: Plan;
      let decisions: (RateLimitDecision | Promise<RateLimitDecision>)[];
      if (caller?.kind === 'partner') {
        plan = keyPlan(caller);
        const [key, partner] = plan.buckets as [Bucket, Bucket];
        decisions = [requests.consume(key.id, key.limit), requests.consume(partner.id, partner.limit)];
      } else {
        plan = addressPlan;
        decisions = [requests.consume(`ip:${request.ip}`, publicLimit)];
      }
      if (!decisions.some((decision) => decision instanceof Promise)) {
        if (apply(reply, plan, decisions as RateLimitDecision[])) done();
        return;
      }
      Promise.all(decisions.map((decision) => Promise.resolve(decision))).then((settled) => {
        if (apply(reply, plan, settled)) done();
      }, done);
    });
    // A process starting next to a healthy Redis counts from its first request; a dead Redis
    // delays the start by at most this bound (then requests pass unchecked until it answers).
    app.addHook('onReady', () => limiter.connected(STARTUP_CONNECT_MS));
    app.addHook('onClose', async () => {
      await requests.close();
      await limiter.close();
    });
  }

  /**
   * A store's verdict as an attempt's; a store that failed lets the attempt through (fail open:
   * request budgets, such as the cabinet's partner requests; the security throttles below count
   * such an attempt in-process instead).
   */
  const decide = (decision: RateLimitDecision): AttemptDecision => {
    if (decision.status === 'unchecked') {
      failures.inc({ reason: decision.reason });
      return { allowed: true, remaining: undefined };
    }
    return decision.status === 'allowed'
      ? { allowed: true, remaining: decision.remaining }
      : { allowed: false, retryAfterSeconds: resetSeconds(decision) };
  };

  /**
   * The security throttles' store when the shared one cannot answer: an attempt the
   * store left unchecked is counted here instead, so a Redis outage never opens the admin token
   * or the cabinet sign-in to unlimited guessing (rate-limiter-flexible's `insuranceLimiter`, in
   * our own memory store so the app's clock drives it). Per process, so N processes allow N
   * budgets during the outage: bounded, unlike failing open. Request budgets stay fail-open.
   */
  const insurance = new MemoryRateLimiter(options.clock);

  function attempts(name: string, perMinute: number): AttemptLimit {
    const decided = (decision: RateLimitDecision, bucket: string): AttemptDecision => {
      if (decision.status !== 'unchecked') return decide(decision);
      failures.inc({ reason: decision.reason });
      return decide(insurance.consume(bucket, perMinute));
    };
    return {
      attempt(address) {
        const bucket = `${name}:${address}`;
        const decision = limiter.consume(bucket, perMinute);
        return decision instanceof Promise ? decision.then((settled) => decided(settled, bucket)) : decided(decision, bucket);
      },
      succeeded(address) {
        const bucket = `${name}:${address}`;
        const refunded = limiter.refund(bucket, perMinute);
        if (refunded instanceof Promise) refunded.catch(() => undefined);
        // Whichever store counted the attempt, it is given back (a refund of nothing is nothing).
        insurance.refund(bucket);
      },
    };
  }

  return {
    attempts,
    partnerRequest(partnerId, perKeyLimit) {
      const bucket = partnerBucket(partnerId, perKeyLimit);
      const decision = requests.consume(bucket.id, bucket.limit);
      return decision instanceof Promise ? decision.then(decide) : decide(decision);
    },
    keyChecks: attempts('key-checks', publicLimit),
    install,
    pingStore: limiter.ping === undefined ? undefined : (timeoutMs) => limiter.ping?.(timeoutMs) ?? Promise.resolve(false),
  };
}

/** Whole seconds until the window ends, rounded up so a client that waits that long finds a fresh one. */
function resetSeconds(decision: Extract<RateLimitDecision, { remaining: number }>): number {
  return Math.max(1, Math.ceil(decision.resetMs / 1000));
}
