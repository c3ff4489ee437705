import { hasDepositAddresses, insertPoolAddresses } from '../db/repositories/deposit-addresses-repository.js';
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
    if (await hasDepositAddresses(db, chain)) continue;
    const addresses = Array.from({ length: DEMO_POOL_SIZE }, () => demoAddress(row.address_format));
    await insertPoolAddresses(db, chain, addresses);
  }
}
