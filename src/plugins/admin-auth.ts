import { createHash, timingSafeEqual } from 'node:crypto';
import type { onRequestAsyncHookHandler } from 'fastify';
import { ApiError } from '../errors.js';

/**
 * Operator API guard: `Authorization: Bearer <ADMIN_TOKEN>`, compared as SHA-256 digests in
 * constant time. A partner key (or anything else) is refused with 401.
 */
export function adminAuthHook(adminToken: string): onRequestAsyncHookHandler {
  const expected = createHash('sha256').update(adminToken).digest();
  return async (request) => {
    const match = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '');
    const presented = createHash('sha256').update(match?.[1] ?? '').digest();
    if (match === null || !timingSafeEqual(presented, expected)) {
      throw new ApiError('unauthorized', 'missing or invalid admin token');
    }
    return Promise.resolve();
  };
}
