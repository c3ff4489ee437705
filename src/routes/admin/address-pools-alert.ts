import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { MAX_POOL_LOW_AT } from '../../services/address-pools.js';
import { errorResponses } from '../schemas.js';
import { PoolChainParams, PoolWithThreshold, adminSecurity } from './admin-schemas.js';


/**
 * PUT /admin/v1/address-pools/{chain}/alert: the pool's low-pool alert threshold (the console's
 * pools page and the CLI's `pools alert` set the same). The pool is low, on the console and for
 * the DepositAddressPoolLow alert (deposit_address_pool_low_at), while it has fewer free
 * addresses than this; null returns the pool to the default.
 */
export function registerAddressPoolsAlert(app: App, { addressPools, backlogGauges }: Services): void {
  app.put(
    '/admin/v1/address-pools/:chain/alert',
    {
      schema: {
        tags: ['admin'],
        summary: "Set a pool's low-pool alert threshold (null: the default)",
        security: adminSecurity,
        params: PoolChainParams,
        body: Type.Object({ low_at: Type.Union([Type.Integer({ minimum: 0, maximum: MAX_POOL_LOW_AT }), Type.Null()]) }, { additionalProperties: false }),
        response: { 200: PoolWithThreshold, ...errorResponses(400, 401, 404, 415, 500) },
      },
    },
    async (request) => {
      const state = await addressPools.setThreshold(request.params.chain, request.body.low_at);
      // This process's gauge says it at once; the others at their next count.
      await backlogGauges.refresh();
      return state;
    },
  );
}
