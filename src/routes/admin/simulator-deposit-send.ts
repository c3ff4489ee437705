import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { ApiError } from '../../errors.js';
import { BodyAmount, readBodyAmounts } from '../amount-input.js';
import { errorResponses } from '../schemas.js';
import { SimulatedDeposit, adminSecurity, sendSimulatedDeposit } from './admin-schemas.js';
import { OrderRefParams } from './order-ref.js';

/**
 * POST /admin/v1/simulator/orders/{id}/deposit: puts a deposit to the order's address on the
 * simulated chain (the expected amount unless one is given). The simulated chain watcher reports
 * it on the worker's next pass, like a node would.
 */
export function registerSimulatorDepositSend(app: App, { simulatedDeposits }: Services): void {
  app.post(
    '/admin/v1/simulator/orders/:id/deposit',
    {
      schema: {
        tags: ['simulator'],
        summary: "Send a simulated deposit to an order's address",
        security: adminSecurity,
        params: OrderRefParams,
        body: Type.Optional(
          Type.Object(
            {
              amount: Type.Optional(BodyAmount('what the deposit brings, in coin_from; default amount_from_expected')),
              txid: Type.Optional(Type.String({ pattern: '^[0-9a-fA-Fx]{8,100}$' })),
            },
            { additionalProperties: false },
          ),
        ),
        response: { 200: SimulatedDeposit, ...errorResponses(400, 401, 404, 409, 500) },
      },
    },
    async (request, reply) => {
      const { amount } = readBodyAmounts(request, ['amount'], { storable: true });
      const sent = await simulatedDeposits.send(request.params.id, { amount, txid: request.body?.txid });
      if (sent === 'no_order') throw new ApiError('not_found', 'order not found');
      if (sent === 'exists') throw new ApiError('conflict', 'this order already has a simulated deposit');
      return sendSimulatedDeposit(sent, reply);
    },
  );
}
