import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { App, Services } from '../../app-types.js';
import type { CurrencyRow } from '../../db/schema/currencies.js';
import type { Db } from '../../db/schema/index.js';
import { validateAddress } from '../../domain/addresses/index.js';
import { ApiError } from '../../errors.js';
import { errorResponses } from '../schemas.js';
import { adminSecurity } from './admin-schemas.js';

const Params = Type.Object({ chain: Type.String({ pattern: '^[A-Za-z0-9]{1,12}$' }) });
const PoolState = Type.Object({
  chain: Type.String(),
  available: Type.Integer({ description: 'addresses not yet handed to an order' }),
  assigned: Type.Integer(),
  added: Type.Optional(Type.Integer()),
  skipped: Type.Optional(Type.Integer({ description: 'already known addresses, never loaded twice' })),
});

function poolChain(services: Services, rawChain: string): CurrencyRow {
  const chain = rawChain.toUpperCase();
  const row = services.catalog.all().find((currency) => currency.chain === chain && currency.deposit_strategy === 'pool');
  if (row === undefined) throw new ApiError('not_found', `${chain} is not a chain with an address pool`);
  return row;
}

async function poolState(db: Db, chain: string) {
  const row = await db
    .selectFrom('deposit_addresses')
    .select([
      sql<number>`count(*) filter (where order_id is null)`.as('available'),
      sql<number>`count(*) filter (where order_id is not null)`.as('assigned'),
    ])
    .where('chain', '=', chain)
    .where('strategy', '=', 'pool')
    .executeTakeFirstOrThrow();
  return { chain, available: Number(row.available), assigned: Number(row.assigned) };
}

/**
 * Address pools for chains whose addresses cannot be derived from an xpub (ed25519: SOL).
 * The operator loads addresses it controls; each is handed to one order, ever.
 */
export function registerAddressPool(app: App, services: Services): void {
  const { database } = services;
  app.get(
    '/admin/v1/address-pools/:chain',
    {
      schema: {
        tags: ['admin'],
        summary: 'How many pool addresses are left',
        security: adminSecurity,
        params: Params,
        response: { 200: PoolState, ...errorResponses(400, 401, 404, 500) },
      },
    },
    async (request) => poolState(database.db, poolChain(services, request.params.chain).chain),
  );

  app.post(
    '/admin/v1/address-pools/:chain',
    {
      schema: {
        tags: ['admin'],
        summary: 'Load deposit addresses into a pool',
        security: adminSecurity,
        params: Params,
        body: Type.Object(
          { addresses: Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { minItems: 1, maxItems: 1000 }) },
          { additionalProperties: false },
        ),
        response: { 200: PoolState, ...errorResponses(400, 401, 404, 413, 415, 500) },
      },
    },
    async (request) => {
      const currency = poolChain(services, request.params.chain);
      const addresses = [...new Set(request.body.addresses)];
      for (const address of addresses) {
        const check = validateAddress(currency.address_format, address);
        if (!check.ok) throw new ApiError('bad_request', `"${address}" is not a valid ${currency.chain} address: ${check.reason}`);
      }
      const inserted = await database.db
        .insertInto('deposit_addresses')
        .values(addresses.map((address) => ({ chain: currency.chain, address, strategy: 'pool' as const, derivation_index: null, order_id: null, assigned_at: null })))
        .onConflict((conflict) => conflict.doNothing())
        .returning('id')
        .execute();
      const state = await poolState(database.db, currency.chain);
      return { ...state, added: inserted.length, skipped: request.body.addresses.length - inserted.length };
    },
  );
}
