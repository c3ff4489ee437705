import type { FastifyInstance, FastifyRequest, preValidationHookHandler } from 'fastify';
import type { PartnerRow } from '../db/schema/partners.js';
import { ApiError } from '../errors.js';
import type { ApiKeyService, Authentication } from '../services/api-keys.js';

/** Who is calling, as far as the presented key says; set by the onRequest hook below. */
export type Caller =
  | { kind: 'anonymous' }
  | { kind: 'partner'; partner: PartnerRow; keyId: string; sealedSecret: Buffer }
  /** A key was sent but is not usable; `error` is thrown by any route that reads the key. */
  | { kind: 'rejected'; error: ApiError };

declare module 'fastify' {
  interface FastifyRequest {
    /** Unset means anonymous (no key presented). */
    caller?: Caller;
    /** Set once a partner key (and signature, when sent) has been verified for this route. */
    partner?: PartnerRow;
  }
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

/** What the caller identification asks the rate limiter (plugins/rate-limit.ts RateLimits). */
export interface AddressBudget {
  addressExhausted(request: FastifyRequest): boolean | Promise<boolean>;
}

/**
 * Identifies the caller on every partner-facing request, before anything else runs, so the
 * rate limiter can count a valid key against its own budget and everything else (failed
 * authentications included) against the client address. The operator API has its own guard.
 *
 * A key that needs a database read (its id neither cached nor remembered as unknown) is read
 * only when the client address still has budget: from an address already over it, the key is
 * not looked at and the request counts against the address (429). Valid keys in use are
 * cached, so they keep their own budget from such an address.
 */
export function installCallerIdentification(app: FastifyInstance, keys: ApiKeyService, budget: AddressBudget): void {
  // Declared up front (as undefined) so every request object keeps one shape.
  app.decorateRequest('caller', undefined);
  // Callback style with a synchronous path: a cached key answers without a promise per request.
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.url.startsWith('/admin/')) return done();
    const key = presentedKey(request);
    if (key === undefined) return done();
    if (key === null) {
      request.caller = { kind: 'rejected', error: new ApiError('unauthorized', 'malformed or conflicting API key headers') };
      return done();
    }
    if (keys.answersFromMemory(key)) return settle(keys.authenticate(key));
    const exhausted = budget.addressExhausted(request);
    if (exhausted === true) return notChecked();
    if (exhausted === false) return settle(keys.authenticate(key));
    exhausted.then((over) => (over ? notChecked() : settle(keys.authenticate(key))), done);

    function notChecked(): void {
      // The rate limiter answers 429 on the address's bucket next; this error is only seen if
      // the address's window ended in between.
      request.caller = { kind: 'rejected', error: new ApiError('rate_limited', 'too many requests from this address: API key not checked') };
      done();
    }
    function settle(result: Authentication | Promise<Authentication>): void {
      if (!(result instanceof Promise)) {
        request.caller = callerOf(result);
        return done();
      }
      result.then(
        (settled) => {
          request.caller = callerOf(settled);
          done();
        },
        done,
      );
    }
  });
}

function callerOf(result: Authentication): Caller {
  return result.ok
    ? { kind: 'partner', partner: result.partner, keyId: result.keyId, sealedSecret: result.sealedSecret }
    : { kind: 'rejected', error: new ApiError(result.failure === 'inactive' ? 'forbidden' : 'unauthorized', result.detail) };
}

export interface PartnerAuthHooks {
  /** Order endpoints: a valid key is required. */
  required: preValidationHookHandler;
  /** Public endpoints: no key is fine, an invalid one is 401 (never silently ignored). */
  optional: preValidationHookHandler;
}

/**
 * Route guards. They run after body parsing (X-Signature covers the raw body) and before
 * validation, so an unauthenticated caller learns that first, not what is wrong with its body.
 */
export function partnerAuthHooks(keys: ApiKeyService): PartnerAuthHooks {
  function check(request: FastifyRequest, required: boolean): void {
    const caller = request.caller ?? { kind: 'anonymous' };
    if (caller.kind === 'rejected') throw caller.error;
    if (caller.kind === 'anonymous') {
      if (required) throw new ApiError('unauthorized', 'missing API key: send Authorization: Bearer <key> or X-API-Key');
      return;
    }
    const signature = request.headers['x-signature'];
    if (signature !== undefined) {
      const body = request.rawBody ?? Buffer.alloc(0);
      if (Array.isArray(signature) || !keys.verifySignature(caller.keyId, caller.sealedSecret, signature, body)) {
        throw new ApiError('invalid_signature', 'invalid signature');
      }
    }
    request.partner = caller.partner;
  }
  // Synchronous hooks (no promise per request); a thrown ApiError goes to done().
  const hook =
    (required: boolean): preValidationHookHandler =>
    (request, _reply, done) => {
      try {
        check(request, required);
      } catch (error) {
        return done(error as Error);
      }
      done();
    };
  return { required: hook(true), optional: hook(false) };
}
