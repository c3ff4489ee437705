import type { App, Services } from '../../app-types.js';
import { errorResponses } from '../schemas.js';
import { SimulatedDeposit, adminSecurity, sendSimulatedDeposit } from './admin-schemas.js';
import { OrderRefParams } from './order-ref.js';

/** POST /admin/v1/simulator/orders/{id}/drop-deposit: the simulated deposit leaves the chain, as in a reorg. */
export function registerSimulatorDepositDrop(app: App, { simulatedDeposits }: Services): void {
  app.post(
    '/admin/v1/simulator/orders/:id/drop-deposit',
    {
      schema: {
        tags: ['simulator'],
        summary: 'Remove the simulated deposit from the chain (a reorg)',
        security: adminSecurity,
        params: OrderRefParams,
        response: { 200: SimulatedDeposit, ...errorResponses(400, 401, 404, 500) },
      },
    },
    async (request, reply) => {
      return sendSimulatedDeposit(await simulatedDeposits.drop(request.params.id), reply);
    },
  );
}
