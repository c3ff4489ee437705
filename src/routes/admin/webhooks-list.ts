import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { errorResponses } from '../schemas.js';
import { adminEndpointView } from '../webhook-views.js';
import { adminSecurity } from './admin-schemas.js';

const Query = Type.Object(
  {
    partner_id: Type.Optional(Type.String({ format: 'uuid', description: "one partner's endpoints" })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
  },
  { additionalProperties: false },
);

/** GET /admin/v1/webhooks: every partner's webhook endpoints (or one partner's), oldest first. */
export function registerAdminListWebhooks(app: App, { webhooks }: Services): void {
  app.get(
    '/admin/v1/webhooks',
    {
      schema: {
        tags: ['admin'],
        summary: 'Webhook endpoints of every partner',
        security: adminSecurity,
        querystring: Query,
        response: {
          200: Type.Object({ webhooks: Type.Array(Type.Ref('AdminWebhookEndpoint')) }, { additionalProperties: false }),
          ...errorResponses(400, 401, 500),
        },
      },
    },
    async (request) => ({ webhooks: (await webhooks.list(request.query.partner_id, request.query.limit ?? 100)).map(adminEndpointView) }),
  );
}
