import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { absentBodyAsEmpty, errorResponses } from '../schemas.js';
import { KeyScopeSchema, PartnerIdParams, adminSecurity } from './admin-schemas.js';

const IssuedKey = Type.Object(
  {
    key_id: Type.String(),
    api_key: Type.String({ description: 'the full key <key_id>.<secret>; shown only in this response' }),
    sandbox: Type.Boolean({ description: 'a sandbox key (pk_test_…): its orders run on the simulator only' }),
    scope: KeyScopeSchema,
    created_at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export function registerCreateKey(app: App, { partners, apiKeys }: Services): void {
  app.post(
    '/admin/v1/partners/:id/keys',
    {
      preValidation: absentBodyAsEmpty,
      schema: {
        tags: ['admin'],
        summary: 'Issue an API key (the secret is shown once)',
        security: adminSecurity,
        params: PartnerIdParams,
        // No body is a live key, as before sandbox keys existed.
        body: Type.Optional(
          Type.Object(
            {
              sandbox: Type.Optional(
                Type.Boolean({ default: false, description: 'v1.1: a sandbox key (pk_test_…) whose orders never run live (docs/contract.md §7.6)' }),
              ),
              scope: Type.Optional(KeyScopeSchema),
            },
            { additionalProperties: false },
          ),
        ),
        // 409: the partner has MAX_API_KEYS_PER_PARTNER unrevoked keys of the kind asked for.
        response: { 201: IssuedKey, ...errorResponses(400, 401, 404, 409, 500) },
      },
    },
    async (request, reply) => {
      const partner = await partners.existing(request.params.id);
      const issued = await apiKeys.issue(partner.id, { sandbox: request.body?.sandbox === true, scope: request.body?.scope ?? 'full' });
      // The full key must not sit in any cache between here and the operator.
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .send({ ...issued, created_at: issued.created_at.toISOString() });
    },
  );
}
