import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { ORDER_STATUSES } from '../../domain/order-status.js';
import { toJson } from '../../json.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { partnerAccess } from '../../plugins/partner-auth.js';
import { errorResponses } from '../schemas.js';

/** At most this many ids per status read (docs/contract.md §10.11). */
export const STATUS_READ_MAX_IDS = 100;

const OrderStatusLine = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    status: Type.Union(ORDER_STATUSES.map((status) => Type.Literal(status)), { description: 'as GET /partner/orders/{id} shows it now' }),
    version: Type.Integer({ minimum: 0, description: 'the Order\'s version: 0 at creation, +1 per move' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

/**
 * POST /api/v1/partner/orders/status (API key; docs/contract.md §10.11): many orders' status and version
 * in one read, for a client that polls instead of holding a stream open. A client key may ask
 * too, and gets the orders it created (docs/contract.md §10.9); ids that are no order of the key (unknown,
 * another partner's or mode's, not a UUID) are left out, so the answer never tells them apart.
 */
export function registerOrderStatuses(app: App, { partnerAuth, orders, clock }: Services): void {
  app.post(
    '/api/v1/partner/orders/status',
    {
      preValidation: partnerAuth.required,
      config: { cors: 'partner' },
      schema: {
        tags: ['partner'],
        summary: 'Status and version of many orders',
        operationId: 'getOrderStatuses',
        description:
          'v1.2: up to 100 order ids (UUIDs) in one read. Answers each one that is an order of the key, in the order asked, with ' +
          'its status, version and updated_at; the others are left out. A larger version than one seen before means the order changed.',
        security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
        body: Type.Object(
          { ids: Type.Array(Type.String({ maxLength: 64 }), { maxItems: STATUS_READ_MAX_IDS, description: 'order UUIDs, at most 100' }) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ orders: Type.Array(OrderStatusLine) }, { additionalProperties: false }),
          ...errorResponses(400, 401, 403, 413, 415, 429, 500),
        },
      },
    },
    async (request, reply) => {
      const lines = await orders.statuses(partnerAccess(request), request.body.ids, clock.now());
      return sendJsonText(reply, toJson({ orders: lines }));
    },
  );
}
