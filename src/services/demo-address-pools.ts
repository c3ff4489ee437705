import type { CurrencyRow } from '../db/schema/currencies.js';
import type { Db } from '../db/schema/index.js';
import { demoAddress } from '../domain/deposit-addresses/demo-addresses.js';

/** How many demo addresses a pool chain gets on the embedded default's first start. */
export const DEMO_POOL_SIZE = 500;

/**
 * Pool chains (SOL) take addresses the operator loads through the operator API. The embedded
 * demo loads random, keyless ones once, so a fresh install can take SOL orders; a chain that
 * ever had pool addresses is left alone.
 */
export async function seedDemoAddressPools(db: Db, catalog: readonly CurrencyRow[]): Promise<void> {
  const chains = new Map(catalog.filter((row) => row.deposit_strategy === 'pool').map((row) => [row.chain, row]));
  for (const [chain, row] of chains) {
    const existing = await db.selectFrom('deposit_addresses').select('id').where('chain', '=', chain).limit(1).executeTakeFirst();
    if (existing !== undefined) continue;
    const rows = Array.from({ length: DEMO_POOL_SIZE }, () => ({
      chain,
      address: demoAddress(row.address_format),
      strategy: 'pool' as const,
      derivation_index: null,
      order_id: null,
      assigned_at: null,
    }));
    await db.insertInto('deposit_addresses').values(rows).onConflict((conflict) => conflict.doNothing()).execute();
  }
}
