import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { Decimal } from '../../domain/money.js';
import { ApiError } from '../../errors.js';
import { toJson } from '../../json.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { errorResponses } from '../schemas.js';
import { adminOrderView, adminSecurity } from './admin-schemas.js';
import { OrderRefParams } from './order-ref.js';

/** GET /admin/v1/orders/{id}: one order with its audit trail and its payout and refund. */
export function registerAdminGetOrder(app: App, { orderLookup, clock, linkBase }: Services): void {
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
      const detail = await orderLookup.detail(request.params.id);
      if (detail === undefined) throw new ApiError('not_found', 'order not found');
      const { order, events, payouts, partnerName } = detail;
      return sendJsonText(
        reply,
        toJson({
          ...adminOrderView(order, clock.now(), linkBase),
          partner_name: partnerName,
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
