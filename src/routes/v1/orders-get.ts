import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { toJson } from '../../json.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { errorResponses } from '../schemas.js';
import { orderView } from './order-view.js';

/** GET /api/v1/partner/orders/{order_id} (API key): by UUID or short id; others' orders are 404. */
export function registerGetOrder(app: App, { partnerAuth, orders, clock }: Services): void {
  app.get(
    '/api/v1/partner/orders/:order_id',
    {
      preValidation: partnerAuth.required,
      schema: {
        tags: ['partner'],
        summary: 'Read an order',
        security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
        params: Type.Object({
          order_id: Type.String({ maxLength: 64, description: 'the order UUID or its short_id (case-insensitive)' }),
        }),
        response: { 200: { $ref: 'Order#' }, ...errorResponses(401, 403, 404, 429, 500) },
      },
    },
    async (request, reply) => {
      const partner = request.partner;
      if (partner === undefined) throw new Error('partner auth hook did not run');
      const order = await orders.get(partner, request.params.order_id);
      return sendJsonText(reply, toJson(orderView(order, clock.now())));
    },
  );
}
