import type { FastifyInstance, FastifyRequest, preValidationHookHandler } from 'fastify';
import type { KeyScope } from '../db/schema/api-keys.js';
import type { PartnerRow } from '../db/schema/partners.js';
import { ApiError, errorBodySchema } from '../errors.js';
import type { Clock } from '../clock.js';
import { modeOf } from '../domain/modes.js';
import type { ApiKeyService, Authentication } from '../services/api-keys.js';
import type { KeyAccess } from '../services/partner-access.js';
import type { SignatureNonces } from '../services/signature-nonces.js';
import type { AttemptDecision, AttemptLimit } from './rate-limit.js';

/** Who is calling, as far as the presented key says; set by the onRequest hook below. */
export type Caller =
  | { kind: 'anonymous' }
  | { kind: 'partner'; partner: PartnerRow; keyId: string; sealedSecret: Buffer; sandbox: boolean; scope: KeyScope }
  /** A key was sent but is not usable; `error` is thrown by any route that reads the key. */
  | { kind: 'rejected'; error: ApiError };

declare module 'fastify' {
  interface FastifyRequest {
    /** Unset means anonymous (no key presented). */
    caller?: Caller;
    /** Set once a partner key (and signature, when sent) has been verified for this route. */
    partner?: PartnerRow;
    /**
     * Set with `partner`: the key's mode and id (docs/contract.md §10.2). Every order and webhook
     * endpoint service takes it, so a key reaches its own mode's only.
     */
    access?: KeyAccess;
  }
}

/** The verified key's access (partnerAuth.required ran before). */
export function partnerAccess(request: FastifyRequest): KeyAccess {
  const access = request.access;
  if (access === undefined) throw new Error('partner auth hook did not run');
  return access;
}

function accessOf(caller: Extract<Caller, { kind: 'partner' }>): KeyAccess {
  const access: KeyAccess = { partner: caller.partner, mode: modeOf(caller.sandbox), actor: { keyId: caller.keyId } };
  // A client key reaches only the orders it created (docs/contract.md §10.9).
  return caller.scope === 'client' ? { ...access, onlyCreatedBy: caller.keyId } : access;
}

/**
 * docs/contract.md §10.9: a client key (`pk_client_…`) is shipped inside apps, so anyone may hold it. It
 * reaches the routes a browser may call with it (route config `cors`: the public routes, order
 * creation, an order it created and its QR code), and nothing else.
 */
function checkScope(request: FastifyRequest, caller: Extract<Caller, { kind: 'partner' }>): void {
  if (caller.scope !== 'client' || request.routeOptions.config.cors !== undefined) return;
  throw new ApiError(
    'scope',
    'this is a client key (pk_client_…), made to ship inside an app: it may read currencies and rates, validate addresses, ' +
      'create orders and read the orders it created (and their QR codes), nothing else; use a full key on your server for this',
  );
}

/**
 * The key a request presents: `Authorization: Bearer <key>` or `X-API-Key: <key>`.
 * `null` means a header was sent but is unusable (not Bearer, or two different keys).
 */
export function presentedKey(request: FastifyRequest): string | undefined | null {
  const authorization = request.headers.authorization;
  const headerKey = request.headers['x-api-key'];
  let bearer: string | undefined;
  if (authorization !== undefined) {
    const match = /^Bearer +(\S+) *$/i.exec(authorization);
    if (match === null) return null;
    bearer = match[1];
  }
  if (Array.isArray(headerKey)) return null;
  if (bearer !== undefined && headerKey !== undefined && bearer !== headerKey) return null;
  return bearer ?? headerKey;
}

/**
 * What the caller identification asks the rate limiter (plugins/rate-limit.ts RateLimits): a
 * budget of failed key checks per client address, counted before a key is read and given back
 * when it is valid.
 */
export interface KeyCheckBudget {
  keyChecks: AttemptLimit;
}

/**
 * Identifies the caller on every partner-facing request, before anything else runs, so the
 * rate limiter can count a valid key against its own budgets and everything else (failed
 * authentications included) against the client address.
 *
 * A valid key is judged by its own and its partner's budgets only: a key this
 * process has not read yet (after a restart, on another process) is read even when the
 * address's anonymous budget is spent, since it may be valid. What bounds guessing is a budget of
 * failed key checks per address (the public limit, 60 a minute, `RateLimits.keyChecks`): each
 * read is counted before it is made and given back when the key is valid, so an address that
 * has failed that many checks in the window gets no more reads (429) until the window ends.
 * Failed keys also count against the address's request budget (they are not a partner's).
 */
export function installCallerIdentification(app: FastifyInstance, keys: ApiKeyService, budget: KeyCheckBudget): void {
  // Declared up front (as undefined) so every request object keeps one shape.
  app.decorateRequest('caller', undefined);
  documentSigningHeaders(app);
  /** Keys being read from the database, by the presented key (whole: a wrong secret is its own read). */
  const inFlight = new Map<string, Promise<Authentication>>();
  // Callback style with a synchronous path: a cached key answers without a promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.url.startsWith('/admin/')) return done();
    const key = presentedKey(request);
    if (key === undefined) return done();
    if (key === null) {
      request.caller = { kind: 'rejected', error: new ApiError('unauthorized', 'malformed or conflicting API key headers') };
      return done();
    }
    const known = keys.authenticateFromMemory(key);
    if (known !== undefined) return identified(known, false);
    // A burst of one key not read yet (a partner's first requests after a restart) shares one
    // read and one count: only the first request of the burst is counted.
    const reading = inFlight.get(key);
    if (reading !== undefined) return settle(reading, false);
    const attempt = budget.keyChecks.attempt(request.ip);
    if (!(attempt instanceof Promise)) return decided(key, attempt);
    attempt.then((decision) => decided(key, decision), done);

    function decided(presented: string, decision: AttemptDecision): void {
      if (decision.allowed) {
        const read = Promise.resolve(keys.authenticate(presented)).finally(() => inFlight.delete(presented));
        inFlight.set(presented, read);
        return settle(read, true);
      }
      // The rate limiter answers 429 on the address's bucket next (the failures counted there
      // too); this error, with its Retry-After, is seen only when that bucket's window ended first.
      reply.header('Retry-After', String(decision.retryAfterSeconds));
      request.caller = { kind: 'rejected', error: new ApiError('rate_limited', 'too many failed API key checks from this address: API key not checked') };
      done();
    }
    /** `counted`: the check was counted in the address's key-check budget (a database read). */
    function settle(result: Authentication | Promise<Authentication>, counted: boolean): void {
      if (!(result instanceof Promise)) return identified(result, counted);
      result.then((settled) => identified(settled, counted), done);
    }
    function identified(result: Authentication, counted: boolean): void {
      request.caller = callerOf(result);
      // Only failures use the budget.
      if (result.ok && counted) budget.keyChecks.succeeded(request.ip);
      done();
    }
  });
}

function callerOf(result: Authentication): Caller {
  return result.ok
    ? { kind: 'partner', partner: result.partner, keyId: result.keyId, sealedSecret: result.sealedSecret, sandbox: result.sandbox, scope: result.scope }
    : { kind: 'rejected', error: new ApiError(result.failure === 'inactive' ? 'forbidden' : 'unauthorized', result.detail) };
}

export interface PartnerAuthHooks {
  /** Order endpoints: a valid key is required. */
  required: preValidationHookHandler;
  /** Public endpoints: no key is fine, an invalid one is 401 (never silently ignored). */
  optional: preValidationHookHandler;
}

/** docs/contract.md §7.7: a timestamped signature is accepted within this distance of the server's time. */
export const SIGNATURE_WINDOW_MS = 5 * 60_000;
/**
 * How long an accepted timestamped signature is remembered past its timestamp: the window plus
 * a minute, so a process whose clock runs a little behind the one that accepted it still
 * finds the record while it would accept the timestamp.
 */
const NONCE_KEPT_MS = SIGNATURE_WINDOW_MS + 60_000;

export interface SigningOptions {
  /** Where accepted timestamped signatures are recorded (Redis, PostgreSQL or memory). */
  nonces: SignatureNonces;
  clock: Clock;
}

/**
 * Route guards. They run after body parsing (X-Signature covers the raw body) and before
 * validation, so an unauthenticated caller learns that first, not what is wrong with its body.
 *
 * X-Signature without X-Timestamp: v1's rule, the HMAC of the body alone. With X-Timestamp
 * (Unix ms), docs/contract.md §7.7: X-Signature is required, is the HMAC of
 * `{X-Timestamp}.{METHOD}.{request target}.{body}` (the target as sent: path and query), the
 * timestamp must be within ±5 minutes of the server's clock, and each signature is accepted
 * once (a replay is 401 `replayed request`; recorded in Redis, PostgreSQL or memory, so the
 * other processes refuse it as well). Every refusal is 401 `invalid_signature`.
 */
export function partnerAuthHooks(keys: ApiKeyService, signing: SigningOptions): PartnerAuthHooks {
  function check(request: FastifyRequest, required: boolean): void | Promise<void> {
    const caller = request.caller ?? { kind: 'anonymous' };
    if (caller.kind === 'rejected') throw caller.error;
    if (caller.kind === 'anonymous') {
      if (required) throw new ApiError('unauthorized', 'missing API key: send Authorization: Bearer <key> or X-API-Key');
      return;
    }
    checkScope(request, caller);
    const signature = request.headers['x-signature'];
    const timestamp = request.headers['x-timestamp'];
    if (timestamp !== undefined) return checkTimestamped(request, caller, timestamp, signature);
    if (signature !== undefined) {
      const body = request.rawBody ?? Buffer.alloc(0);
      if (Array.isArray(signature) || !keys.verifySignature(caller.keyId, caller.sealedSecret, signature, body)) {
        throw new ApiError('invalid_signature', 'invalid signature');
      }
    }
    request.partner = caller.partner;
    request.access = accessOf(caller);
  }

  async function checkTimestamped(
    request: FastifyRequest,
    caller: Extract<Caller, { kind: 'partner' }>,
    timestamp: string | string[],
    signature: string | string[] | undefined,
  ): Promise<void> {
    if (Array.isArray(timestamp) || !/^[0-9]{1,15}$/.test(timestamp)) {
      throw new ApiError('invalid_signature', 'X-Timestamp must be one Unix time in milliseconds');
    }
    if (signature === undefined || Array.isArray(signature)) {
      throw new ApiError('invalid_signature', 'X-Timestamp needs one X-Signature: HMAC-SHA256 of {X-Timestamp}.{METHOD}.{request target}.{body}');
    }
    const sentAt = Number(timestamp);
    const now = signing.clock.now().getTime();
    if (sentAt < now - SIGNATURE_WINDOW_MS) throw new ApiError('invalid_signature', 'X-Timestamp is more than 5 minutes old');
    if (sentAt > now + SIGNATURE_WINDOW_MS) throw new ApiError('invalid_signature', 'X-Timestamp is more than 5 minutes ahead of the server time');
    // The target as the client sent it (path and query), never a normalised form.
    const prefix = `${timestamp}.${request.method}.${request.raw.url ?? request.url}.`;
    const body = request.rawBody ?? Buffer.alloc(0);
    if (!keys.verifySignature(caller.keyId, caller.sealedSecret, signature, body, prefix)) {
      throw new ApiError('invalid_signature', 'invalid signature');
    }
    // Upper- and lower-case hex are the same signature: one record for both.
    const first = await signing.nonces.claim(`${caller.keyId}:${signature.toLowerCase()}`, new Date(sentAt + NONCE_KEPT_MS));
    if (!first) throw new ApiError('invalid_signature', 'replayed request');
    request.partner = caller.partner;
    request.access = accessOf(caller);
  }

  // Synchronous hooks for untimestamped requests (no promise per request); a thrown ApiError
  // goes to done().
  const hook =
    (required: boolean): preValidationHookHandler =>
    (request, _reply, done) => {
      let pending: void | Promise<void>;
      try {
        pending = check(request, required);
      } catch (error) {
        return done(error as Error);
      }
      if (pending === undefined) return done();
      pending.then(() => done(), done);
    };
  return { required: hook(true), optional: hook(false) };
}

/** The signing headers, documented on every route that takes a partner key (OpenAPI parameters). */
const SIGNING_HEADERS = {
  'x-signature': {
    type: 'string',
    description:
      'Optional. Lowercase hex HMAC-SHA256 keyed with the secret part of the key: of the exact body bytes (empty for GET); with X-Timestamp, of `{X-Timestamp}.{METHOD}.{request target}.{body}`. A mismatch is 401 `invalid signature`.',
  },
  'x-timestamp': {
    type: 'string',
    pattern: '^[0-9]{1,15}$',
    description:
      'Optional, replay-proof signing (v1.1): Unix time in milliseconds. Requires X-Signature over `{X-Timestamp}.{METHOD}.{request target}.{body}` (the target as sent, path and query, e.g. `/api/v1/partner/orders?limit=5`; body empty for GET). Accepted within ±5 minutes of the server time, each signature once: a replay is 401 `replayed request`. While the shared replay store cannot answer, a timestamped request is refused with 503 `unavailable` (never accepted unchecked): retry with a new X-Timestamp.',
  },
} as const;

/**
 * Adds the signing headers to the schema of every route whose security names a partner key, and
 * its 503: a timestamped request the replay store cannot check is refused (docs/adr/0053).
 */
function documentSigningHeaders(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const security = route.schema?.security as Record<string, unknown>[] | undefined;
    if (security === undefined || !security.some((entry) => 'bearerAuth' in entry || 'apiKeyHeader' in entry)) return;
    const headers = (route.schema?.headers ?? { type: 'object', properties: {} }) as { properties?: Record<string, unknown> };
    // A copy: one schema object may be shared by several routes.
    const response = route.schema?.response as Record<string, unknown> | undefined;
    const withUnavailable = response === undefined || response['503'] !== undefined ? response : { ...response, 503: { $ref: `${errorBodySchema.$id}#` } };
    route.schema = {
      ...route.schema,
      headers: { ...headers, properties: { ...headers.properties, ...SIGNING_HEADERS } },
      ...(withUnavailable === undefined ? {} : { response: withUnavailable }),
    };
  });
}
