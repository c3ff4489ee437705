import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { insertPoolAddresses } from '../../db/repositories/deposit-addresses-repository.js';
import { validateAddress } from '../../domain/addresses/index.js';
import { ApiError } from '../../errors.js';
import { errorResponses } from '../schemas.js';
import { PoolChainParams, PoolState, adminSecurity, poolCurrency, poolState } from './admin-schemas.js';

/**
 * POST /admin/v1/address-pools/{chain}: loads addresses the operator controls into a chain's
 * pool; each is handed to one order, ever, and a known one is skipped.
 */
export function registerAddressPoolsLoad(app: App, services: Services): void {
  const db = services.database.db;
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
    async (request) => {
      const currency = poolCurrency(services, request.params.chain);
      const addresses = [...new Set(request.body.addresses)];
      for (const address of addresses) {
        const check = validateAddress(currency.address_format, address);
        if (!check.ok) throw new ApiError('bad_request', `"${address}" is not a valid ${currency.chain} address: ${check.reason}`);
      }
      const added = await insertPoolAddresses(db, currency.chain, addresses);
      // A chain's first pool makes its deposits configured here at once (other processes: at their next refresh).
      if (added > 0) await services.catalog.reload();
      const state = await poolState(db, currency.chain);
      return { ...state, added, skipped: request.body.addresses.length - added };
    },
  );
}
