import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { errorResponses } from '../schemas.js';
import { PoolChainParams, PoolState, adminSecurity } from './admin-schemas.js';

/**
 * POST /admin/v1/address-pools/{chain}: loads addresses the operator controls into a chain's
 * pool; each is handed to one order, ever, and a known one is skipped.
 */
export function registerAddressPoolsLoad(app: App, { addressPools }: Services): void {
  app.post(
    '/admin/v1/address-pools/:chain',
    {
      schema: {
        tags: ['admin'],
        summary: 'Load deposit addresses into a pool',
        security: adminSecurity,
        params: PoolChainParams,
        body: Type.Object(
          { addresses: Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { minItems: 1, maxItems: 1000 }) },
          { additionalProperties: false },
        ),
        response: { 200: PoolState, ...errorResponses(400, 401, 404, 413, 415, 500) },
      },
    },
    async (request) => addressPools.load(request.params.chain, request.body.addresses),
  );
}
