import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify';
import { ApiError, errorBodySchema } from '../errors.js';
import type { OperatorRole } from '../domain/operator-roles.js';
import type { AttemptLimit } from './rate-limit.js';

/** Who a personal token (`Bearer opt_…`) is: its audit actor and role; undefined when it is no live token. */
export type PersonalTokenCheck = (presented: string) => Promise<{ actor: string; role: OperatorRole } | undefined>;

/**
 * Operator API guard: `Authorization: Bearer <ADMIN_TOKEN>`, compared as SHA-256 digests in
 * constant time, which acts as `admin`; or a person's own API token (`Bearer opt_…`, made in
 * the console), which acts as its person with its role (`personalToken`). A partner key (or
 * anything else) is refused with 401.
 *
 * Failures are limited per client address (`attempts`, ADMIN_AUTH_FAILURES_PER_MINUTE): each
 * request counts as an attempt before its token is compared and is given back when it matches;
 * an address over the budget is answered 429 with Retry-After and its token is not compared,
 * so guessing stops there, parallel guesses included. Every failure is logged at warn with the
 * address and why (never the token: Authorization is redacted and not copied into the line).
 */
export function adminAuthHook(adminToken: string, attempts: AttemptLimit, personalToken: PersonalTokenCheck): onRequestAsyncHookHandler {
  const expected = createHash('sha256').update(adminToken).digest();
  return async (request, reply) => {
    const attempt = await attempts.attempt(request.ip);
    if (!attempt.allowed) {
      void reply.header('Retry-After', String(attempt.retryAfterSeconds));
      throw new ApiError(
        'rate_limited',
        `too many failed admin authentications from this address; retry in ${attempt.retryAfterSeconds} s`,
      );
    }
    const match = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '');
    const presented = createHash('sha256').update(match?.[1] ?? '').digest();
    const bootstrap = match !== null && timingSafeEqual(presented, expected);
    const person = bootstrap || match?.[1] === undefined ? undefined : await personalToken(match[1]);
    if (!bootstrap && person === undefined) {
      request.log.warn(
        {
          client: request.ip,
          reason: match === null ? 'no bearer token' : 'wrong token',
          failures_left: attempt.remaining,
        },
        attempt.remaining === 0
          ? 'admin authentication failed; this address is refused (429) until its window ends'
          : 'admin authentication failed',
      );
      throw new ApiError('unauthorized', 'missing or invalid admin token');
    }
    attempts.succeeded(request.ip);
    // The bootstrap token is for automation; people use tokens of their own (docs/decisions.md).
    request.operatorActor = person?.actor ?? 'token:ADMIN_TOKEN';
    request.operatorRole = person?.role ?? 'admin';
  };
}

/**
 * Every route behind the guard can answer 429 (too many failed tokens from the address), before
 * its own handler runs: documented here, once, on each route the context registers.
 */
export function documentAdminAuthErrors(admin: FastifyInstance): void {
  admin.addHook('onRoute', (route) => {
    const response = route.schema?.response as Record<string, unknown> | undefined;
    if (response === undefined || response['429'] !== undefined) return;
    // A copy: one schema object may be shared by several routes.
    route.schema = { ...route.schema, response: { ...response, 429: { $ref: `${errorBodySchema.$id}#` } } };
  });
}
