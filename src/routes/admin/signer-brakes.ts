import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import type { SignerPause } from '../../db/repositories/payout-operations-repository.js';
import { toJson } from '../../json.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { errorResponses } from '../schemas.js';
import { adminSecurity, STORABLE_TEXT_PATTERN } from './admin-schemas.js';
import { Actor } from './payouts.js';

const Brake = Type.Object(
  {
    chain: Type.Optional(Type.String({ pattern: '^[A-Z0-9]{1,12}$', description: 'one chain (LTC); absent: every chain' })),
    by: Actor,
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500, pattern: STORABLE_TEXT_PATTERN })),
  },
  { additionalProperties: false },
);

const pausesView = (pauses: readonly SignerPause[]) => ({
  paused: pauses.map((pause) => ({ chain: pause.chain, by: pause.paused_by, reason: pause.reason, paused_at: pause.paused_at })),
});

/**
 * POST /admin/v1/signer/pause and …/resume, GET /admin/v1/signer (docs/contract.md §11.7): the brakes.
 * Paused, the signer signs nothing new on the chain (payouts wait in `requested`, reason
 * `paused`) and still follows what it already broadcast. Persisted (a restarted signer stays
 * paused) and every pause and resume kept with who and why. `*` (no chain) pauses every chain;
 * resuming `*` lifts only that pause, never a chain's own.
 */
export function registerSignerBrakes(app: App, { payoutOperations }: Services): void {
  app.get(
    '/admin/v1/signer',
    {
      schema: {
        tags: ['admin'],
        summary: 'The signer brakes that are on',
        security: adminSecurity,
        response: { 200: Type.Object({}, { additionalProperties: true }), ...errorResponses(401, 500) },
      },
    },
    async (_request, reply) => sendJsonText(reply, toJson(pausesView(await payoutOperations.brakes()))),
  );
  for (const action of ['pause', 'resume'] as const) {
    app.post(
      `/admin/v1/signer/${action}`,
      {
        schema: {
          tags: ['admin'],
          summary: action === 'pause' ? 'Pause the signer for a chain or every chain (no new signatures)' : 'Lift a pause of the signer',
          security: adminSecurity,
          body: Brake,
          response: { 200: Type.Object({}, { additionalProperties: true }), ...errorResponses(400, 401, 415, 500) },
        },
      },
      async (request, reply) => {
        const { chain = '*', by, reason = null } = request.body;
        return sendJsonText(reply, toJson(pausesView(await payoutOperations.brake(action, chain, by, reason))));
      },
    );
  }
}
