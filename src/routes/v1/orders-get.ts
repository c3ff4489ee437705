import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { errorResponses } from '../schemas.js';
import { partnerOrderWireJson } from '../../views/partner-order-view.js';
import { partnerAccess } from '../../plugins/partner-auth.js';

/** GET /api/v1/partner/orders/{order_id} (API key): by UUID or short id; others' orders are 404. */
export function registerGetOrder(app: App, { partnerAuth, orders, clock, linkBase }: Services): void {
  app.get(
    '/api/v1/partner/orders/:order_id',
    {
      preValidation: partnerAuth.required,
      // docs/contract.md §10.9: a client key may call it, from the pages of its partner's cors_origins.
      config: { cors: 'partner' },
      schema: {
        tags: ['partner'],
        summary: 'Read an order',
        operationId: 'getOrder',
        security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
        params: Type.Object({
          // No length limit here: anything that is not a UUID or short id is an order that does
          // not exist (404, docs/contract.md §1), and the router caps path parameters at 200 characters.
          order_id: Type.String({ description: 'the order UUID or its short_id (case-insensitive)' }),
        }),
        response: { 200: { $ref: 'Order#' }, ...errorResponses(401, 403, 404, 429, 500) },
      },
    },
    async (request, reply) => {
      // The wire row: its timestamps and amounts are already the response's text.
      const order = await orders.getWire(partnerAccess(request), request.params.order_id);
      return sendJsonText(reply, partnerOrderWireJson(order, clock.now(), linkBase));
    },
  );
}
