import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { listOrderEvents } from '../../db/repositories/order-events-repository.js';
import { findOrder } from '../../db/repositories/orders-repository.js';
import { findPartner } from '../../db/repositories/partners-repository.js';
import { listOrderPayouts } from '../../db/repositories/payouts-repository.js';
import { Decimal } from '../../domain/money.js';
import { ApiError } from '../../errors.js';
import { toJson } from '../../json.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { errorResponses } from '../schemas.js';
import { adminOrderView, adminSecurity } from './admin-schemas.js';
import { OrderRefParams } from './order-ref.js';

/** GET /admin/v1/orders/{id}: one order with its audit trail and its payout and refund. */
export function registerAdminGetOrder(app: App, { database, clock, linkBase }: Services): void {
  const db = database.db;
  app.get(
    '/admin/v1/orders/:id',
    {
      schema: {
        tags: ['admin'],
        summary: 'One order with its audit trail',
        security: adminSecurity,
        params: OrderRefParams,
        response: { 200: Type.Object({}, { additionalProperties: true }), ...errorResponses(400, 401, 404, 500) },
      },
    },
    async (request, reply) => {
      const order = await findOrder(db, request.params.id);
      if (order === undefined) throw new ApiError('not_found', 'order not found');
      const events = await listOrderEvents(db, order.id);
      const payouts = await listOrderPayouts(db, order.id);
      const partner = await findPartner(db, order.partner_id);
      return sendJsonText(
        reply,
        toJson({
          ...adminOrderView(order, clock.now(), linkBase),
          partner_name: partner?.name ?? null,
          events: events.map((event) => ({ ...event, created_at: event.created_at.toISOString() })),
          payouts: payouts.map((payout) => ({
            ...payout,
            amount: new Decimal(payout.amount),
            created_at: payout.created_at.toISOString(),
            sent_at: payout.sent_at?.toISOString() ?? null,
          })),
        }),
      );
    },
  );
}
