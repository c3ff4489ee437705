import { sql } from 'kysely';
import type { ChainCursorRow, ChainDepositRow } from '../schema/chain-cursors.js';
import type { Db } from '../schema/index.js';

export async function findChainCursor(db: Db, chain: string): Promise<ChainCursorRow | undefined> {
  return db.selectFrom('chain_cursors').selectAll().where('chain', '=', chain).executeTakeFirst();
}

export async function listChainCursors(db: Db): Promise<ChainCursorRow[]> {
  return db.selectFrom('chain_cursors').selectAll().orderBy('chain').execute();
}

/**
 * Moves the cursor to `to` if it still stands at `expected` (null: not set yet). False when
 * another worker moved it first: that worker's scan counts, ours is simply not recorded.
 */
export async function moveChainCursor(
  db: Db,
  chain: string,
  expected: { height: number; hash: string } | null,
  to: { network: string; height: number; hash: string },
  now: Date,
): Promise<boolean> {
  const values = { network: to.network, height: to.height, block_hash: to.hash, last_ok_at: now, updated_at: now };
  const result = await db
    .insertInto('chain_cursors')
    .values({ chain, ...values })
    .onConflict((conflict) =>
      conflict
        .column('chain')
        .doUpdateSet(values)
        .where(sql<boolean>`chain_cursors.height is not distinct from ${expected?.height ?? null}::bigint`)
        .where(sql<boolean>`chain_cursors.block_hash is not distinct from ${expected?.hash ?? null}::text`),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** A pass that failed: the error is kept for /readyz; the cursor stays where it was. */
export async function recordChainError(db: Db, chain: string, error: string, now: Date): Promise<void> {
  await db
    .insertInto('chain_cursors')
    .values({ chain, last_error: error, last_error_at: now, updated_at: now })
    .onConflict((conflict) => conflict.column('chain').doUpdateSet({ last_error: error, last_error_at: now, updated_at: now }))
    .execute();
}

/** A pass that succeeded without moving the cursor (no new block). */
export async function recordChainOk(db: Db, chain: string, network: string, now: Date): Promise<void> {
  await db.updateTable('chain_cursors').set({ network, last_ok_at: now, updated_at: now }).where('chain', '=', chain).execute();
}

export async function findChainDeposits(db: Db, orderIds: readonly string[]): Promise<ChainDepositRow[]> {
  if (orderIds.length === 0) return [];
  return db
    .selectFrom('chain_deposits')
    .selectAll()
    .where('order_id', 'in', [...orderIds])
    .orderBy('first_seen_at')
    .orderBy('txid')
    .execute();
}

/** Records a deposit, or moves a known one to the block it is in now (mined again after a reorg). */
export async function upsertChainDeposit(
  db: Db,
  deposit: { orderId: string; txid: string; chain: string; amount: string; blockHeight: number; blockHash: string },
  now: Date,
): Promise<void> {
  await db
    .insertInto('chain_deposits')
    .values({
      order_id: deposit.orderId,
      txid: deposit.txid,
      chain: deposit.chain,
      amount: deposit.amount,
      block_height: deposit.blockHeight,
      block_hash: deposit.blockHash,
      first_seen_at: now,
      updated_at: now,
    })
    .onConflict((conflict) =>
      conflict.columns(['order_id', 'txid']).doUpdateSet({ block_height: deposit.blockHeight, block_hash: deposit.blockHash, updated_at: now }),
    )
    .execute();
}

/** The deposit's block left the best chain (reorg): it no longer counts until mined again. */
export async function unconfirmChainDeposit(db: Db, orderId: string, txid: string, blockHash: string, now: Date): Promise<void> {
  await db
    .updateTable('chain_deposits')
    .set({ block_height: null, block_hash: null, updated_at: now })
    .where('order_id', '=', orderId)
    .where('txid', '=', txid)
    .where('block_hash', '=', blockHash)
    .execute();
}

/** The watched orders' coin: its token contract, null for a chain's own coin. */
export async function findOrderCoins(db: Db, orderIds: readonly string[]): Promise<Array<{ id: string; token_contract: string | null }>> {
  if (orderIds.length === 0) return [];
  return db
    .selectFrom('orders as o')
    .innerJoin('currencies as c', 'c.id', 'o.currency_from_id')
    .select(['o.id', 'c.token_contract'])
    .where('o.id', 'in', [...orderIds])
    .execute();
}
