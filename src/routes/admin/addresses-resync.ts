import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { errorResponses } from '../schemas.js';
import { adminSecurity } from './admin-schemas.js';

const ResyncedChain = Type.Object(
  {
    chain: Type.String({ description: 'the chain (hd and memo chains; pool chains have no index)' }),
    highest_index_known: Type.Union([Type.Integer(), Type.Null()], { description: 'the highest index (hd derivation index, memo tag number) the database knows was handed out; null: none' }),
    next_index_before: Type.Integer({ description: 'the index the chain would have handed out next' }),
    next_index: Type.Integer({ description: 'the index it hands out next now (never lower than before)' }),
  },
  { additionalProperties: false },
);

/**
 * POST /admin/v1/addresses/resync: after a restore, moves each chain's next deposit index past
 * every index the database knows plus ADDRESS_RESYNC_GAP (docs/operations.md). Also done at start.
 */
export function registerAddressesResync(app: App, { resyncDepositIndexes }: Services): void {
  app.post(
    '/admin/v1/addresses/resync',
    {
      schema: {
        tags: ['admin'],
        summary: 'Move every chain\'s next deposit index past the known ones plus ADDRESS_RESYNC_GAP (after a restore)',
        security: adminSecurity,
        response: { 200: Type.Object({ chains: Type.Array(ResyncedChain) }, { additionalProperties: false }), ...errorResponses(400, 401, 500) },
      },
    },
    async () => {
      const chains = await resyncDepositIndexes();
      return {
        chains: chains.map((chain) => ({
          chain: chain.chain,
          highest_index_known: chain.highestKnown,
          next_index_before: chain.nextBefore,
          next_index: chain.nextAfter,
        })),
      };
    },
  );
}
