import type { App, Services } from '../../app-types.js';
import { errorResponses } from '../schemas.js';
import { PoolChainParams, PoolWithThreshold, adminSecurity } from './admin-schemas.js';

/**
 * GET /admin/v1/address-pools/{chain}: how many addresses are left in the pool of a chain whose
 * addresses cannot be derived from an xpub (ed25519: SOL), and the threshold it is low below.
 */
export function registerAddressPoolsGet(app: App, services: Services): void {
  app.get(
    '/admin/v1/address-pools/:chain',
    {
      schema: {
        tags: ['admin'],
        summary: 'How many pool addresses are left',
        security: adminSecurity,
        params: PoolChainParams,
        response: { 200: PoolWithThreshold, ...errorResponses(400, 401, 404, 500) },
      },
    },
    async (request) => services.addressPools.state(request.params.chain),
  );
}
