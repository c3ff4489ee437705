import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { errorResponses } from '../schemas.js';
import { SimulatedDeposit, adminSecurity, sendSimulatedDeposit } from './admin-schemas.js';
import { OrderRefParams } from './order-ref.js';

/** POST /admin/v1/simulator/orders/{id}/confirmations: sets how many confirmations the simulated deposit has. */
export function registerSimulatorConfirmationsSet(app: App, { simulatedDeposits }: Services): void {
  app.post(
    '/admin/v1/simulator/orders/:id/confirmations',
    {
      schema: {
        tags: ['simulator'],
        summary: 'Set the confirmations of the simulated deposit',
        security: adminSecurity,
        params: OrderRefParams,
        body: Type.Object({ count: Type.Integer({ minimum: 0, maximum: 100000 }) }, { additionalProperties: false }),
        response: { 200: SimulatedDeposit, ...errorResponses(400, 401, 404, 500) },
      },
    },
    async (request, reply) => {
      return sendSimulatedDeposit(await simulatedDeposits.setConfirmations(request.params.id, request.body.count), reply);
    },
  );
}
