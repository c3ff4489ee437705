import type { App, Services } from '../../app-types.js';
import { toJson } from '../../json.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { absentBodyAsEmpty, errorResponses } from '../schemas.js';
import { Type } from '@sinclair/typebox';
import { adminOrderView, adminSecurity } from './admin-schemas.js';
import { OrderRefParams } from './order-ref.js';

/**
 * POST /admin/v1/orders/{id}/resume: an order stuck in exchanging or sending is continued: its
 * step (the exchange, the payout) is due again at once with a fresh retry budget, for the
 * worker's next pass (OrderActions.resume). 409 in any other status, or while a worker holds
 * the order.
 */
export function registerAdminResumeOrder(app: App, { orderActions, clock, linkBase }: Services): void {
  app.post(
    '/admin/v1/orders/:id/resume',
    {
      preValidation: absentBodyAsEmpty,
      schema: {
        tags: ['admin'],
        summary: 'Continue an order stuck in exchanging or sending: its step is tried again now, with a fresh retry budget',
        security: adminSecurity,
        params: OrderRefParams,
        body: Type.Optional(Type.Object({}, { additionalProperties: false })),
        response: { 200: Type.Object({}, { additionalProperties: true }), ...errorResponses(400, 401, 404, 409, 500) },
      },
    },
    async (request, reply) => sendJsonText(reply, toJson(adminOrderView(await orderActions.resume(request.params.id), clock.now(), linkBase))),
  );
}
