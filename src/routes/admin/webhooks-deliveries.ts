import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { absentBodyAsEmpty, errorResponses } from '../schemas.js';
import { DeliveriesQuery, DeliveryLog } from '../v1/webhooks-deliveries.js';
import { deliveryView } from '../webhook-views.js';
import { adminSecurity } from './admin-schemas.js';

const Params = Type.Object({ id: Type.String({ format: 'uuid' }) });

/**
 * GET /admin/v1/webhooks/{id}/deliveries (any partner's delivery log) and
 * POST /admin/v1/webhooks/deliveries/{id}/retry (redeliver any partner's delivery now).
 */
export function registerAdminWebhookDeliveries(app: App, { webhooks }: Services): void {
  app.get(
    '/admin/v1/webhooks/:id/deliveries',
    {
      schema: {
        tags: ['admin'],
        summary: "A webhook endpoint's delivery log, newest first",
        security: adminSecurity,
        params: Params,
        querystring: DeliveriesQuery,
        response: { 200: DeliveryLog, ...errorResponses(400, 401, 404, 500) },
      },
    },
    async (request) => {
      const { status, limit = 50 } = request.query;
      return { deliveries: (await webhooks.deliveries(request.params.id, undefined, { status, limit })).map(deliveryView) };
    },
  );
  app.post(
    '/admin/v1/webhooks/deliveries/:id/retry',
    {
      preValidation: absentBodyAsEmpty,
      schema: {
        tags: ['admin'],
        summary: 'Redeliver a webhook delivery now (same webhook-id)',
        security: adminSecurity,
        params: Params,
        body: Type.Object({}, { additionalProperties: false }),
        response: { 202: Type.Ref('WebhookDelivery'), ...errorResponses(400, 401, 404, 415, 500) },
      },
    },
    async (request, reply) => reply.code(202).send(deliveryView(await webhooks.retry(request.params.id))),
  );
}
