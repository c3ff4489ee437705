import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { findPartner } from '../../db/repositories/partners-repository.js';
import { ApiError } from '../../errors.js';
import { errorResponses } from '../schemas.js';
import { PartnerIdParams, adminSecurity } from './admin-schemas.js';

export function registerListKeys(app: App, { database, apiKeys }: Services): void {
  app.get(
    '/admin/v1/partners/:id/keys',
    {
      schema: {
        tags: ['admin'],
        summary: "A partner's keys (never their secrets)",
        security: adminSecurity,
        params: PartnerIdParams,
        response: { 200: Type.Array(Type.Ref('AdminKey')), ...errorResponses(400, 401, 404, 500) },
      },
    },
    async (request) => {
      const partner = await findPartner(database.db, request.params.id);
      if (partner === undefined) throw new ApiError('not_found', 'partner not found');
      const keys = await apiKeys.list(partner.id);
      return keys.map((key) => ({
        key_id: key.key_id,
        sandbox: key.sandbox,
        scope: key.scope,
        created_at: key.created_at.toISOString(),
        revoked_at: key.revoked_at?.toISOString() ?? null,
      }));
    },
  );
}
