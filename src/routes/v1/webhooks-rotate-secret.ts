import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { absentBodyAsEmpty, errorResponses } from '../schemas.js';
import { endpointView } from '../webhook-views.js';
import { callerScope, EndpointParams, partnerSecurity } from './webhooks-shared.js';

/** POST /api/v1/partner/webhooks/{id}/rotate-secret (API key): a new secret; the old one signs beside it for 24 h. */
export function registerRotateWebhookSecret(app: App, { partnerAuth, webhooks }: Services): void {
  app.post(
    '/api/v1/partner/webhooks/:id/rotate-secret',
    {
      preValidation: [partnerAuth.required, absentBodyAsEmpty],
      schema: {
        tags: ['partner'],
        summary: "Rotate an endpoint's signing secret",
        description: 'For 24 hours every delivery carries two signatures, by the new secret and by the previous one.',
        operationId: 'rotateWebhookSecret',
        security: partnerSecurity,
        params: EndpointParams,
        body: Type.Object({}, { additionalProperties: false }),
        response: {
          200: Type.Ref('WebhookEndpointWithSecret'),
          ...errorResponses(400, 401, 403, 404, 415, 429, 500),
        },
      },
    },
    async (request) => {
      const { endpoint, secret } = await webhooks.rotateSecret(request.params.id, callerScope(request));
      return { ...endpointView(endpoint), secret };
    },
  );
}
