import type { FastifyReply, FastifyRequest, preValidationAsyncHookHandler } from 'fastify';
import type { PartnerRow } from '../db/schema/partners.js';
import { ApiError } from '../errors.js';
import type { ApiKeyService } from '../services/api-keys.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set once a partner key has been verified on this request. */
    partner?: PartnerRow;
    apiKeyId?: string;
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

export interface PartnerAuthHooks {
  /** Order endpoints: a valid key is required. */
  required: preValidationAsyncHookHandler;
  /** Public endpoints: no key is fine, an invalid one is 401 (never silently ignored). */
  optional: preValidationAsyncHookHandler;
}

/**
 * Runs before body validation, so an unauthenticated request learns it is unauthenticated
 * rather than what is wrong with its body, and after parsing, so the raw body is there for
 * X-Signature.
 */
export function partnerAuthHooks(keys: ApiKeyService): PartnerAuthHooks {
  async function authenticate(request: FastifyRequest, _reply: FastifyReply, required: boolean): Promise<void> {
    const key = presentedKey(request);
    if (key === undefined) {
      if (required) throw new ApiError('unauthorized', 'missing API key: send Authorization: Bearer <key> or X-API-Key');
      return;
    }
    if (key === null) throw new ApiError('unauthorized', 'malformed or conflicting API key headers');
    const signature = request.headers['x-signature'];
    if (Array.isArray(signature)) throw new ApiError('invalid_signature', 'invalid signature');
    const result = await keys.authenticate(key, signature, request.rawBody ?? Buffer.alloc(0));
    if (!result.ok) {
      if (result.failure === 'inactive') throw new ApiError('forbidden', result.detail);
      throw new ApiError(result.failure === 'bad_signature' ? 'invalid_signature' : 'unauthorized', result.detail);
    }
    request.partner = result.partner;
    request.apiKeyId = result.keyId;
  }
  return {
    required: (request, reply) => authenticate(request, reply, true),
    optional: (request, reply) => authenticate(request, reply, false),
  };
}
