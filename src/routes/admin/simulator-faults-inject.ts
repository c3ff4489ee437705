import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { injectFault } from '../../chains/simulator/simulator-faults.js';
import { errorResponses } from '../schemas.js';
import { adminSecurity } from './admin-schemas.js';

/** POST /admin/v1/simulator/faults: the next exchange, payout or refund attempts of the simulator fail. */
export function registerSimulatorFaultsInject(app: App, { database }: Services): void {
  app.post(
    '/admin/v1/simulator/faults',
    {
      schema: {
        tags: ['simulator'],
        summary: 'Make the next exchange, payout or refund attempts fail',
        security: adminSecurity,
        body: Type.Object(
          {
            step: Type.Union([Type.Literal('exchange'), Type.Literal('payout'), Type.Literal('refund')]),
            count: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, default: 1 })),
            permanent: Type.Optional(Type.Boolean({ default: false, description: 'retrying cannot help' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ step: Type.String(), count: Type.Integer(), permanent: Type.Boolean() }),
          ...errorResponses(400, 401, 500),
        },
      },
    },
    async (request) => {
      const { step, count = 1, permanent = false } = request.body;
      await injectFault(database.db, step, count, permanent);
      return { step, count, permanent };
    },
  );
}
