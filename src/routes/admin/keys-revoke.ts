import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { isKeyId } from '../../domain/api-key-format.js';
import { ApiError } from '../../errors.js';
import { errorResponses } from '../schemas.js';
import { adminSecurity } from './admin-schemas.js';

/** Revocation is immediate in every API process (infrastructure/auth-changes.ts). Repeating it is a no-op. */
export function registerRevokeKey(app: App, { apiKeys }: Services): void {
  app.delete(
    '/admin/v1/keys/:key_id',
    {
      schema: {
        tags: ['admin'],
        summary: 'Revoke an API key',
        security: adminSecurity,
        params: Type.Object({ key_id: Type.String({ maxLength: 64 }) }),
        // 400: a body, which DELETE does not need, that is not valid JSON.
        response: { 204: Type.Null(), ...errorResponses(400, 401, 404, 500) },
      },
    },
    async (request, reply) => {
      const { key_id } = request.params;
      const revoked = isKeyId(key_id) ? await apiKeys.revoke(key_id) : undefined;
      if (revoked === undefined) throw new ApiError('not_found', 'API key not found');
      return reply.code(204).send(null);
    },
  );
}
