import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { errorResponses } from '../schemas.js';
import { deliveryView, DeliveryStatusFilter } from '../webhook-views.js';
import { callerScope, EndpointParams, partnerSecurity } from './webhooks-shared.js';

export const DeliveriesQuery = Type.Object(
  {
    status: Type.Optional(DeliveryStatusFilter),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  },
  { additionalProperties: false },
);

export const DeliveryLog = Type.Object(
  {
    deliveries: Type.Array(Type.Ref('WebhookDelivery'), {
      description: 'one line per attempt, and one (attempt 0) per delivery not attempted yet; newest first',
    }),
  },
  { additionalProperties: false },
);

/** GET /api/v1/partner/webhooks/{id}/deliveries (API key): the endpoint's delivery log, an attempt a line, newest first. */
export function registerWebhookDeliveries(app: App, { partnerAuth, webhooks }: Services): void {
  app.get(
    '/api/v1/partner/webhooks/:id/deliveries',
    {
      preValidation: partnerAuth.required,
      schema: {
        tags: ['partner'],
        summary: "An endpoint's delivery log",
        operationId: 'listWebhookDeliveries',
        security: partnerSecurity,
        params: EndpointParams,
        querystring: DeliveriesQuery,
        response: { 200: DeliveryLog, ...errorResponses(400, 401, 403, 404, 429, 500) },
      },
    },
    async (request) => {
      const { status, limit = 50 } = request.query;
      const rows = await webhooks.deliveries(request.params.id, callerScope(request), { status, limit });
      return { deliveries: rows.map(deliveryView) };
    },
  );
}
