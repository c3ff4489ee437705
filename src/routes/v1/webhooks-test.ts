import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { absentBodyAsEmpty, errorResponses } from '../schemas.js';
import { deliveryView } from '../webhook-views.js';
import { callerScope, EndpointParams, partnerSecurity } from './webhooks-shared.js';

/** POST /api/v1/partner/webhooks/{id}/test (API key): queues a `ping` to the endpoint. */
export function registerTestWebhook(app: App, { partnerAuth, webhooks }: Services): void {
  app.post(
    '/api/v1/partner/webhooks/:id/test',
    {
      preValidation: [partnerAuth.required, absentBodyAsEmpty],
      schema: {
        tags: ['partner'],
        summary: 'Send a ping event',
        description: 'Its outcome shows in the delivery log like any other delivery.',
        operationId: 'testWebhook',
        security: partnerSecurity,
        params: EndpointParams,
        body: Type.Object({}, { additionalProperties: false }),
        response: { 202: Type.Ref('WebhookDelivery'), ...errorResponses(400, 401, 403, 404, 409, 415, 429, 500) },
      },
    },
    async (request, reply) => reply.code(202).send(deliveryView(await webhooks.ping(request.params.id, callerScope(request)))),
  );
}
