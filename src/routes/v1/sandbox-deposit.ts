import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { ApiError } from '../../errors.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { BodyAmount, readBodyAmounts } from '../amount-input.js';
import { absentBodyAsEmpty, errorResponses } from '../schemas.js';
import { orderJson } from './order-view.js';
import { partnerAccess } from '../../plugins/partner-auth.js';

const Body = Type.Object(
  {
    amount: Type.Optional(
      BodyAmount(
        'what the simulated deposit brings, in coin_from (a number, or a decimal string); default amount_from_expected. ' +
          'An amount the order cannot take (outside the limits, or off a fixed rate) sends it to refunding, as a real one would',
      ),
    ),
  },
  { additionalProperties: false },
);

/**
 * POST /api/v1/partner/sandbox/orders/{order_id}/deposit (API key, docs/contract.md §7.6): the partner
 * pays its own sandbox order. The deposit goes onto the simulated chain already confirmed (a
 * partner has no node to wait on), and the lifecycle worker carries the order on from its next
 * pass exactly as for a live deposit: to completed, or to refunding when the amount does not
 * fit. Only the caller's sandbox orders: a live order, another partner's, or none at all is 404,
 * so this route can never put a deposit on an order that runs live.
 */
export function registerSandboxDeposit(app: App, { partnerAuth, orders, simulatedDeposits, clock, linkBase }: Services): void {
  app.post(
    '/api/v1/partner/sandbox/orders/:order_id/deposit',
    {
      // Authentication first: a stranger learns nothing about the body.
      preValidation: [partnerAuth.required, absentBodyAsEmpty],
      schema: {
        tags: ['partner'],
        summary: 'Simulate the deposit of a sandbox order',
        operationId: 'simulateSandboxDeposit',
        description:
          'v1.1, sandbox orders only (made with a pk_test_ key; any other order is 404). Records a confirmed deposit on the ' +
          'simulated chain; the order then moves on by itself (confirming, exchanging, sending, completed; or refunding). ' +
          'Answers the Order as GET then reads it. One deposit per order: a second is 409.',
        security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
        params: Type.Object({
          order_id: Type.String({ description: 'the order UUID or its short_id (case-insensitive)' }),
        }),
        body: Type.Optional(Body),
        response: { 200: { $ref: 'Order#' }, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429, 500) },
      },
    },
    async (request, reply) => {
      const order = await orders.get(partnerAccess(request), request.params.order_id);
      // The same answer as for an order that does not exist: nothing tells a live order apart.
      if (!order.sandbox) throw new ApiError('not_found', 'order not found');
      const { amount } = readBodyAmounts(request, ['amount'], { storable: true });
      // Already confirmed: a partner has no node to wait on.
      const sent = await simulatedDeposits.send(order.id, { amount, confirmations: order.deposit_confirmations_required });
      if (sent === 'exists') throw new ApiError('conflict', 'this sandbox order already has a deposit');
      if (sent === 'no_order') throw new ApiError('not_found', 'order not found');
      return sendJsonText(reply, orderJson(order, clock.now(), linkBase));
    },
  );
}
