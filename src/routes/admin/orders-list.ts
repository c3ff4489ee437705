import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { searchOrders } from '../../db/repositories/order-listings-repository.js';
import { ORDER_STATUSES } from '../../domain/order-status.js';
import { toJson } from '../../json.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { errorResponses } from '../schemas.js';
import { timeFilter } from '../time-filter.js';
import { adminOrderView, adminSecurity } from './admin-schemas.js';

const Status = Type.Union(ORDER_STATUSES.map((status) => Type.Literal(status)));

/** GET /admin/v1/orders: orders newest first, filtered by status, partner and creation time. */
export function registerAdminListOrders(app: App, { database, clock, linkBase }: Services): void {
  app.get(
    '/admin/v1/orders',
    {
      schema: {
        tags: ['admin'],
        summary: 'Orders, newest first, filtered by status, partner and creation time',
        security: adminSecurity,
        querystring: Type.Object(
          {
            status: Type.Optional(Status),
            partner_id: Type.Optional(Type.String({ format: 'uuid' })),
            created_from: Type.Optional(Type.String({ format: 'date-time' })),
            created_to: Type.Optional(Type.String({ format: 'date-time' })),
            sandbox: Type.Optional(Type.Boolean({ description: 'true: sandbox (test) orders only; false: live only; absent: both' })),
            limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
            // PostgreSQL's OFFSET is a bigint: a larger number would fail the query (a 500).
            offset: Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0 }),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Array(Type.Object({}, { additionalProperties: true })), ...errorResponses(400, 401, 500) },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const rows = await searchOrders(database.db, {
        status: q.status,
        partnerId: q.partner_id,
        createdFrom: q.created_from === undefined ? undefined : timeFilter('created_from', q.created_from),
        createdTo: q.created_to === undefined ? undefined : timeFilter('created_to', q.created_to),
        sandbox: q.sandbox,
        limit: q.limit,
        offset: q.offset,
      });
      const now = clock.now();
      return sendJsonText(reply, toJson(rows.map((row) => adminOrderView(row, now, linkBase))));
    },
  );
}
