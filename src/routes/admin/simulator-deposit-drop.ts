import type { App, Services } from '../../app-types.js';
import { dropSimulatedDeposit } from '../../db/repositories/simulator-repository.js';
import { errorResponses } from '../schemas.js';
import { SimulatedDeposit, adminSecurity, sendSimulatedDeposit } from './admin-schemas.js';
import { OrderRefParams } from './order-ref.js';

/** POST /admin/v1/simulator/orders/{id}/drop-deposit: the simulated deposit leaves the chain, as in a reorg. */
export function registerSimulatorDepositDrop(app: App, { database, clock }: Services): void {
  const db = database.db;
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
      await dropSimulatedDeposit(db, request.params.id, clock.now());
      return sendSimulatedDeposit(db, request.params.id, reply);
    },
  );
}
