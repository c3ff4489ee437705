import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { errorResponses } from '../schemas.js';
import { PartnerIdParams, adminSecurity } from './admin-schemas.js';

export function registerListKeys(app: App, { partners, apiKeys }: Services): void {
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
      const partner = await partners.existing(request.params.id);
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
