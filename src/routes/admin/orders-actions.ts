import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { toJson } from '../../json.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { absentBodyAsEmpty, errorResponses } from '../schemas.js';
import { adminOrderView, adminSecurity } from './admin-schemas.js';
import { OrderRefParams } from './order-ref.js';

/**
 * The order actions of docs/contract.md §7.5 for the operator, on any order (the audit row's actor is
 * `operator`): the same moves of the lifecycle table as the partner's routes, with the same 409
 * when the table does not allow them now. Each answers the order as GET /admin/v1/orders/{id}
 * shows it (without its trail).
 */

const NoBody = Type.Optional(Type.Object({}, { additionalProperties: false }));

function registerBodilessAction(
  app: App,
  { orderActions, clock, linkBase }: Services,
  url: string,
  action: 'cancel' | 'continue' | 'refund',
  summary: string,
): void {
  app.post(
    url,
    {
      preValidation: absentBodyAsEmpty,
      schema: {
        tags: ['admin'],
        summary,
        security: adminSecurity,
        params: OrderRefParams,
        body: NoBody,
        response: { 200: Type.Object({}, { additionalProperties: true }), ...errorResponses(400, 401, 404, 409, 500) },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const order = await orderActions.perform({ id }, { action }, 'operator');
      return sendJsonText(reply, toJson(adminOrderView(order, clock.now(), linkBase)));
    },
  );
}

export function registerAdminOrderActions(app: App, services: Services): void {
  registerBodilessAction(app, services, '/admin/v1/orders/:id/cancel', 'cancel', 'Cancel an order awaiting its deposit (→ expired, cancelled)');
  registerBodilessAction(app, services, '/admin/v1/orders/:id/continue', 'continue', 'Continue an order whose refund is held (re-priced at the float rate)');
  registerBodilessAction(app, services, '/admin/v1/orders/:id/refund', 'refund', 'Refund an order whose refund is held, now');
  const { orderActions, clock, linkBase } = services;
  app.put(
    '/admin/v1/orders/:id/refund-address',
    {
      schema: {
        tags: ['admin'],
        summary: 'Set or change an order\'s refund address (until its refund is requested)',
        security: adminSecurity,
        params: OrderRefParams,
        body: Type.Object(
          {
            refund_address: Type.String({ minLength: 1, maxLength: 128 }),
            refund_address_tag: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 128 }), Type.Null()])),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({}, { additionalProperties: true }), ...errorResponses(400, 401, 404, 409, 500) },
      },
    },
    async (request, reply) => {
      const order = await orderActions.perform(
        { id: request.params.id },
        {
          action: 'set_refund_address',
          refundAddress: request.body.refund_address,
          refundAddressTag: request.body.refund_address_tag ?? undefined,
        },
        'operator',
      );
      return sendJsonText(reply, toJson(adminOrderView(order, clock.now(), linkBase)));
    },
  );
}
