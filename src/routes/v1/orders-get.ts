import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { sendJsonTextTagged } from '../../plugins/json-reply.js';
import { errorResponses, NotModified } from '../schemas.js';
import { partnerAccess } from '../../plugins/partner-auth.js';

/** GET /api/v1/partner/orders/{order_id} (API key): by UUID or short id; others' orders are 404. */
export function registerGetOrder(app: App, { partnerAuth, orderReads }: Services): void {
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
        response: { 200: { $ref: 'Order#' }, 304: NotModified, ...errorResponses(401, 403, 404, 429, 500) },
      },
    },
    async (request, reply) => {
      // This process's copy while the order has not moved, else the database's (docs/adr/0057-order-read-cache.md).
      const order = await orderReads.read(partnerAccess(request), request.params.order_id);
      return sendJsonTextTagged(request, reply, order.json, order.etag);
    },
  );
}
