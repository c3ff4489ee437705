import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { absentBodyAsEmpty, errorResponses } from '../schemas.js';
import { deliveryView } from '../webhook-views.js';
import { callerScope, DeliveryParams, partnerSecurity } from './webhooks-shared.js';

/** POST /api/v1/partner/webhooks/deliveries/{id}/retry (API key): redeliver now, with the same webhook-id. */
export function registerRetryWebhookDelivery(app: App, { partnerAuth, webhooks }: Services): void {
  app.post(
    '/api/v1/partner/webhooks/deliveries/:id/retry',
    {
      preValidation: [partnerAuth.required, absentBodyAsEmpty],
      schema: {
        tags: ['partner'],
        summary: 'Retry a delivery now',
        description: 'A delivered or failed delivery gets one more attempt; a pending one is made due now, keeping its schedule.',
        operationId: 'retryWebhookDelivery',
        security: partnerSecurity,
        params: DeliveryParams,
        body: Type.Object({}, { additionalProperties: false }),
        response: { 202: Type.Ref('WebhookDelivery'), ...errorResponses(400, 401, 403, 404, 415, 429, 500) },
      },
    },
    async (request, reply) => reply.code(202).send(deliveryView(await webhooks.retry(request.params.id, callerScope(request)))),
  );
}
