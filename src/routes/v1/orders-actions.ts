import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import type { ActionRequest } from '../../services/order-actions.js';
import { absentBodyAsEmpty, errorResponses } from '../schemas.js';
import { orderJson } from './order-view.js';
import { partnerAccess } from '../../plugins/partner-auth.js';

/**
 * The order actions of docs/contract.md §7.5 (API key): each answers 200 with the Order as GET then
 * answers it, 409 when the action is not among the order's `actions` now, 404 for an order that
 * is not the caller's. Every one is a move of the lifecycle table (services/order-actions.ts).
 */

const Params = Type.Object({
  order_id: Type.String({ description: 'the order UUID or its short_id (case-insensitive)' }),
});

/** cancel, continue and refund take no body (an empty JSON object is accepted too). */
const NoBody = Type.Optional(Type.Object({}, { additionalProperties: false }));

const RefundAddressBody = Type.Object(
  {
    refund_address: Type.String({ minLength: 1, maxLength: 128, description: 'where a refund of the deposit is sent, on the deposit\'s network' }),
    refund_address_tag: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 128 }), Type.Null()], {
        description: 'memo or destination tag of the refund address: required where the deposit network routes by memo (XRP, XLM, TON), refused elsewhere',
      }),
    ),
  },
  { additionalProperties: false },
);

/** POST /partner/orders/{id}/cancel, /continue and /refund: the same shape, one action each. */
function registerBodilessAction(
  app: App,
  { partnerAuth, orders, orderActions, clock, linkBase }: Services,
  url: string,
  action: 'cancel' | 'continue' | 'refund',
  summary: string,
  description: string,
): void {
  app.post(
    url,
    {
      preValidation: [partnerAuth.required, absentBodyAsEmpty],
      schema: {
        tags: ['partner'],
        summary,
        // cancelOrder, continueOrder, refundOrder: the SDK's names (packages/sdk).
        operationId: `${action}Order`,
        description,
        security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
        params: Params,
        body: NoBody,
        response: { 200: { $ref: 'Order#' }, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429, 500) },
      },
    },
    async (request, reply) => {
      const access = partnerAccess(request);
      const order = await orders.get(access, request.params.order_id);
      const moved = await orderActions.perform(order, { action }, access.actor);
      return sendJsonText(reply, orderJson(moved, clock.now(), linkBase));
    },
  );
}

export function registerOrderActions(app: App, services: Services): void {
  registerBodilessAction(
    app,
    services,
    '/api/v1/partner/orders/:order_id/cancel',
    'cancel',
    'Cancel an order awaiting its deposit',
    'v1.1: only while the order waits for its deposit and none was seen (`cancel` in actions): it becomes expired with ' +
      'status_reason cancelled. A deposit arriving later is a late deposit, refunded. Otherwise 409.',
  );
  registerBodilessAction(
    app,
    services,
    '/api/v1/partner/orders/:order_id/continue',
    'continue',
    'Continue an order whose refund is held',
    'v1.1: while a refund is held for a choice (`continue` in actions: the deposit missed the fixed rate or the limits ' +
      'the order was made with, but the pair takes it at its float rate now): the received amount is re-priced at the ' +
      'current float rate and exchanged; the order goes back to exchanging. Otherwise 409.',
  );
  registerBodilessAction(
    app,
    services,
    '/api/v1/partner/orders/:order_id/refund',
    'refund',
    'Refund an order whose refund is held, now',
    'v1.1: while a refund is held for a choice (`refund` in actions): the refund is requested at once instead of when ' +
      'the hold runs out (without a refund address the order then waits for one). Otherwise 409.',
  );
  const { partnerAuth, orders, orderActions, clock, linkBase } = services;
  app.put(
    '/api/v1/partner/orders/:order_id/refund-address',
    {
      preValidation: partnerAuth.required,
      schema: {
        tags: ['partner'],
        summary: 'Set or change the refund address',
        operationId: 'setRefundAddress',
        description:
          'v1.1: until a refund is requested (`set_refund_address` in actions; 409 after). The address is checked as at ' +
          'order creation (400). An order waiting in refunding for a refund address has its refund requested at once.',
        security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
        params: Params,
        body: RefundAddressBody,
        response: { 200: { $ref: 'Order#' }, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429, 500) },
      },
    },
    async (request, reply) => {
      const access = partnerAccess(request);
      const order = await orders.get(access, request.params.order_id);
      const action: ActionRequest = {
        action: 'set_refund_address',
        refundAddress: request.body.refund_address,
        refundAddressTag: request.body.refund_address_tag ?? undefined,
      };
      const moved = await orderActions.perform(order, action, access.actor);
      return sendJsonText(reply, orderJson(moved, clock.now(), linkBase));
    },
  );
}
