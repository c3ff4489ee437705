import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CorsOrigins } from '../services/cors-origins.js';

/**
 * CORS (docs/contract.md §10.9), written here rather than with @fastify/cors (not a dependency): a few
 * headers, decided per route.
 *
 * - `any`: the public routes (currencies, rates, address validation, the public order status)
 *   answer every origin with `*`.
 * - `partner`: the client-key routes (order creation, an order and its QR code) answer an origin
 *   the calling key's partner lists in `cors_origins`, and only for a client key (`pk_client_…`):
 *   a full key stays on servers, so a page using one fails in the browser rather than working.
 *   A request without a usable key (its 401 must be readable to be fixed) and a preflight (which
 *   carries no key) are answered when some active partner lists the origin.
 * - Every other route sends no CORS headers at all, preflight included (404).
 *
 * A route opts in with `config: { cors: 'any' | 'partner' }`; its OPTIONS route (the preflight)
 * is added by `registerPreflights` after the routes.
 */
export type CorsPolicy = 'any' | 'partner';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Which browser origins may call the route (plugins/cors.ts); unset: none. */
    cors?: CorsPolicy;
  }
}

/** Request headers a browser may send: the key, the body's type, idempotency and signing. */
const ALLOWED_HEADERS = 'Authorization, X-API-Key, Content-Type, Idempotency-Key, X-Signature, X-Timestamp, X-Request-Id';
/** Response headers a page may read besides the simple ones. */
const EXPOSED_HEADERS = 'Retry-After, X-Request-Id, RateLimit, RateLimit-Policy, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset';
/** How long a browser may reuse a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE_SECONDS = '600';

export interface Cors {
  /** Adds OPTIONS routes for every route registered since install() that has a CORS policy. */
  registerPreflights(): void;
}

/**
 * Adds the CORS headers to the answers of the routes with a policy. Install it after the caller
 * identification (a `partner` route's answer depends on the key) and before the rate limiter
 * (its 429 must be readable too).
 */
export function installCors(app: FastifyInstance, origins: CorsOrigins): Cors {
  /** Per path with a policy: the policy and the methods it answers. */
  const routes = new Map<string, { policy: CorsPolicy; methods: Set<string> }>();
  app.addHook('onRoute', (route) => {
    const policy = route.config?.cors;
    if (policy === undefined) return;
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((method) => method !== 'HEAD' && method !== 'OPTIONS');
    const known = routes.get(route.url);
    if (known !== undefined && known.policy !== policy) throw new Error(`${route.url}: one CORS policy per path`);
    const entry = known ?? { policy, methods: new Set<string>() };
    for (const method of methods) entry.methods.add(method);
    routes.set(route.url, entry);
  });

  app.addHook('onRequest', (request, reply, done) => {
    const policy = request.routeOptions.config.cors;
    if (policy === undefined || request.method === 'OPTIONS') return done();
    const origin = request.headers.origin;
    if (policy === 'any') {
      reply.header('access-control-allow-origin', '*').header('access-control-expose-headers', EXPOSED_HEADERS);
      return done();
    }
    reply.header('vary', 'Origin');
    if (typeof origin !== 'string') return done();
    const caller = request.caller;
    if (caller?.kind === 'partner') {
      if (caller.scope === 'client' && caller.partner.cors_origins.includes(origin)) allowOrigin(reply, origin);
      return done();
    }
    origins.allowedBySomePartner(origin).then((allowed) => {
      if (allowed) allowOrigin(reply, origin);
      done();
    }, done);
  });

  return {
    registerPreflights(): void {
      for (const [url, { policy, methods }] of routes) {
        const allowMethods = [...methods].sort().join(', ');
        // 204: a preflight that is not allowed gets no CORS headers, which the browser reads as a
        // refusal. 400: an OPTIONS request with a body that is not JSON (Fastify reads its body).
        const schema = { hide: true, response: { 204: { type: 'null' }, 400: { $ref: 'Error#' } } };
        app.options(url, { schema, config: { cors: policy } }, async (request, reply) => {
          await answerPreflight(request, reply, policy, allowMethods, origins);
          return reply.code(204).send();
        });
      }
    },
  };
}

function allowOrigin(reply: FastifyReply, origin: string): void {
  reply.header('access-control-allow-origin', origin).header('access-control-expose-headers', EXPOSED_HEADERS);
}

/** The preflight's headers when its origin and method are allowed; none otherwise (the browser then refuses). */
async function answerPreflight(request: FastifyRequest, reply: FastifyReply, policy: CorsPolicy, allowMethods: string, origins: CorsOrigins): Promise<void> {
  const origin = request.headers.origin;
  const method = request.headers['access-control-request-method'];
  if (policy === 'partner') reply.header('vary', 'Origin');
  if (typeof origin !== 'string' || typeof method !== 'string' || !allowMethods.split(', ').includes(method.toUpperCase())) return;
  if (policy === 'any') reply.header('access-control-allow-origin', '*');
  else if (await origins.allowedBySomePartner(origin)) reply.header('access-control-allow-origin', origin);
  else return;
  reply
    .header('access-control-allow-methods', allowMethods)
    .header('access-control-allow-headers', ALLOWED_HEADERS)
    .header('access-control-max-age', PREFLIGHT_MAX_AGE_SECONDS);
}
