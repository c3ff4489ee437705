import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { endpointView } from '../webhook-views.js';
import { errorResponses } from '../schemas.js';
import { callerScope, partnerSecurity } from './webhooks-shared.js';

/** GET /api/v1/partner/webhooks (API key): the caller's endpoints, oldest first. */
export function registerListWebhooks(app: App, { partnerAuth, webhooks }: Services): void {
  app.get(
    '/api/v1/partner/webhooks',
    {
      preValidation: partnerAuth.required,
      schema: {
        tags: ['partner'],
        summary: 'List webhook endpoints',
        operationId: 'listWebhooks',
        security: partnerSecurity,
        response: {
          200: Type.Object({ webhooks: Type.Array(Type.Ref('WebhookEndpoint')) }, { additionalProperties: false }),
          ...errorResponses(401, 403, 429, 500),
        },
      },
    },
    async (request) => ({ webhooks: (await webhooks.list(callerScope(request))).map(endpointView) }),
  );
}
