import { sql } from 'kysely';
import type { Db } from '../schema/index.js';

/**
 * EVM nonces reserved per chain and address (migration 0052, docs/contract.md §11.7). Both run inside the
 * payout loop's transaction with the chain's advisory lock held (signer-repository lockChain),
 * so the nonce read is the one taken, and it is taken only with the transaction that uses it.
 */

/** The next nonce the table holds for the address, or undefined when it has none yet. */
export async function reservedNextNonce(tx: Db, chain: string, address: string): Promise<bigint | undefined> {
  const row = await tx.selectFrom('evm_nonces').select('next_nonce').where('chain', '=', chain).where('address', '=', address.toLowerCase()).executeTakeFirst();
  return row === undefined ? undefined : BigInt(row.next_nonce);
}

/** Takes `nonce`: the next new transaction gets `nonce + 1`. Never moves the row backwards. */
export async function takeNonce(tx: Db, chain: string, address: string, nonce: bigint): Promise<void> {
  const next = (nonce + 1n).toString();
  await tx
    .insertInto('evm_nonces')
    .values({ chain, address: address.toLowerCase(), next_nonce: next })
    .onConflict((conflict) => conflict.columns(['chain', 'address']).doUpdateSet({ next_nonce: sql<string>`greatest(evm_nonces.next_nonce, excluded.next_nonce)` }))
    .execute();
}
