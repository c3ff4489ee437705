import { sql } from 'kysely';
import type { Db } from '../schema/index.js';
import type { PayoutKind, PayoutTransactionRow } from '../schema/payouts.js';

/**
 * The signer's queries (src/signer): the payouts it signs and the transactions it makes. Only
 * the tables and view its PostgreSQL role is granted (migration 0051): payouts,
 * payout_transactions, hot_wallet_indexes, signer_payout_checks and currencies.
 */

/** A requested payout as the signer judges and pays it. */
export interface ClaimedPayout {
  id: string;
  kind: PayoutKind;
  chain: string;
  address: string;
  tag: string | null;
  amount: string;
  currency_id: string;
  coin: string;
  network: string;
  decimals: number;
  token_contract: string | null;
  expected_amount: string | null;
  to_own_address: boolean;
  approved_by: string | null;
  created_at: Date;
}

/**
 * Locks the chain for this transaction: one signer at a time chooses coins, nonces and the
 * 24-hour sums of a chain, so two signers never spend the same coin or pass a limit together.
 */
export async function lockChain(tx: Db, chain: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`signer:${chain}`}))`.execute(tx);
}

/** Up to `limit` requested payouts of `chain`, oldest first, locked (SKIP LOCKED) until commit. */
export async function claimRequestedPayouts(tx: Db, chain: string, limit: number): Promise<ClaimedPayout[]> {
  return tx
    .selectFrom('payouts as p')
    .innerJoin('signer_payout_checks as c', 'c.payout_id', 'p.id')
    .innerJoin('currencies as cur', 'cur.id', 'p.currency_id')
    .select([
      'p.id',
      'p.kind',
      'p.chain',
      'p.address',
      'p.tag',
      'p.amount',
      'cur.id as currency_id',
      'cur.coin',
      'cur.network',
      'cur.decimals',
      'cur.token_contract',
      'c.expected_amount',
      'c.to_own_address',
      'p.approved_by',
      'p.created_at',
    ])
    .where('p.payer', '=', 'signer')
    .where('p.status', '=', 'requested')
    .where('p.chain', '=', chain)
    .where('c.sandbox', '=', false)
    .orderBy('p.created_at')
    .orderBy('p.id')
    .limit(limit)
    .forUpdate('p')
    .skipLocked()
    .execute();
}

/** What the signer signed of a currency since `since` (payouts signed, in flight or confirmed). */
export async function signedSince(tx: Db, currencyId: string, since: Date): Promise<string> {
  const row = await tx
    .selectFrom('payouts')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<string>('amount'), sql<string>`0`).as('total'))
    .where('currency_id', '=', currencyId)
    .where('status', 'in', ['signed', 'broadcast', 'confirmed'])
    .where('signed_at', '>=', since)
    .executeTakeFirstOrThrow();
  return String(row.total);
}

/** Outpoints spent by the chain's transactions in flight: no new transaction may spend them. */
export async function reservedInputs(tx: Db, chain: string): Promise<Set<string>> {
  const rows = await tx.selectFrom('payout_transactions').select('inputs').where('chain', '=', chain).where('state', 'in', ['signed', 'broadcast']).execute();
  return new Set(rows.flatMap((row) => row.inputs));
}

/** The chain's next change index, taken: the next call gets the one after. */
export async function takeChangeIndex(tx: Db, chain: string): Promise<number> {
  const row = await tx
    .insertInto('hot_wallet_indexes')
    .values({ chain, next_change_index: 1 })
    .onConflict((conflict) => conflict.column('chain').doUpdateSet({ next_change_index: sql`hot_wallet_indexes.next_change_index + 1` }))
    .returning('next_change_index')
    .executeTakeFirstOrThrow();
  return row.next_change_index - 1;
}

/** The chain's next change index, not taken (what the node's wallet must watch up to). */
export async function peekChangeIndex(db: Db, chain: string): Promise<number> {
  const row = await db.selectFrom('hot_wallet_indexes').select('next_change_index').where('chain', '=', chain).executeTakeFirst();
  return row?.next_change_index ?? 0;
}

export async function failPayout(tx: Db, id: string, reason: string, now: Date): Promise<void> {
  await tx.updateTable('payouts').set({ status: 'failed', failure_reason: reason, status_reason: null, updated_at: now }).where('id', '=', id).execute();
}

export async function awaitApproval(tx: Db, id: string, reason: string, now: Date): Promise<void> {
  await tx.updateTable('payouts').set({ status: 'awaiting_approval', status_reason: reason, updated_at: now }).where('id', '=', id).execute();
}

/** Payouts that stay requested, and why (`awaiting_liquidity`, `paused`); null clears it. */
export async function setWaitReason(tx: Db, ids: readonly string[], reason: string | null, now: Date): Promise<void> {
  if (ids.length === 0) return;
  await tx.updateTable('payouts').set({ status_reason: reason, updated_at: now }).where('id', 'in', [...ids]).where('status', '=', 'requested').execute();
}

/**
 * Stores a signed transaction and moves its payouts to `signed`, with each payout's share of
 * the fee: in the same database transaction as the claim, and before anything is broadcast.
 */
export async function storeSignedTransaction(
  tx: Db,
  row: { chain: string; txid: string; raw: string; fee: string; vsize: number | null; inputs: string[]; nonce: string | null; replaces_id: string | null; seen_unmined_at_block: string | null },
  payouts: readonly { id: string; fee: string }[],
  now: Date,
): Promise<string> {
  const stored = await tx
    .insertInto('payout_transactions')
    .values({ ...row, created_at: now, broadcast_at: null, mined_at: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (const payout of payouts) {
    await tx
      .updateTable('payouts')
      .set({ status: 'signed', transaction_id: stored.id, txid: row.txid, fee: payout.fee, signed_at: now, status_reason: null, updated_at: now })
      .where('id', '=', payout.id)
      .execute();
  }
  return stored.id;
}

/** The chain's transactions that are stored but not yet mined deep enough. */
export async function transactionsInFlight(db: Db, chain: string): Promise<PayoutTransactionRow[]> {
  return db.selectFrom('payout_transactions').selectAll().where('chain', '=', chain).where('state', 'in', ['signed', 'broadcast']).orderBy('created_at').execute();
}

export async function markBroadcast(db: Db, transactionId: string, now: Date): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx.updateTable('payout_transactions').set({ state: 'broadcast', broadcast_at: now }).where('id', '=', transactionId).where('state', '=', 'signed').execute();
    await tx.updateTable('payouts').set({ status: 'broadcast', updated_at: now }).where('transaction_id', '=', transactionId).where('status', '=', 'signed').execute();
  });
}

/**
 * The other transactions of `transactionId`'s replacement family (docs/contract.md §11.2: an EVM
 * replacement is a new row whose `replaces_id` points at the one it replaces, same nonce):
 * every row reached through `replaces_id` either way. Empty for a transaction never replaced.
 */
export async function replacementFamily(db: Db, transactionId: string): Promise<string[]> {
  const result = await sql<{ id: string }>`
    with recursive family (id, replaces_id) as (
      select id, replaces_id from payout_transactions where id = ${transactionId}
      union
      select t.id, t.replaces_id from payout_transactions t join family f on t.replaces_id = f.id or t.id = f.replaces_id
    )
    select id from family where id <> ${transactionId}`.execute(db);
  return result.rows.map((row) => row.id);
}

/**
 * Mined with enough confirmations: the transaction is `mined`, the others of its replacement
 * family `replaced` (only one of a nonce can be mined), and the payouts of any of them
 * `confirmed` with the mined one's id and txid. `fee`, when the chain reports the real one
 * (EVM: gasUsed × effectiveGasPrice), replaces the estimate on the transaction, and on its
 * payout when it pays one. Returns the family's other ids: settled too.
 */
export async function markMined(db: Db, transactionId: string, confirmations: number, now: Date, fee?: string): Promise<string[]> {
  return db.transaction().execute(async (tx) => {
    const mined = await tx
      .updateTable('payout_transactions')
      .set({ state: 'mined', confirmations, mined_at: now, ...(fee === undefined ? {} : { fee }) })
      .where('id', '=', transactionId)
      .returning('txid')
      .executeTakeFirstOrThrow();
    const family = await replacementFamily(tx, transactionId);
    if (family.length > 0) {
      await tx.updateTable('payout_transactions').set({ state: 'replaced' }).where('id', 'in', family).where('state', 'in', ['signed', 'broadcast']).execute();
    }
    const paying = await tx
      .selectFrom('payouts')
      .select('id')
      .where('transaction_id', 'in', [transactionId, ...family])
      .where('status', 'in', ['signed', 'broadcast'])
      .execute();
    // The real fee goes on the payout in the statement that confirms it: a commission payout's
    // ledger posting is made by that statement's trigger (migration 0066) and must see it.
    const realFee = fee !== undefined && paying.length === 1 ? { fee } : {};
    await tx
      .updateTable('payouts')
      .set({ status: 'confirmed', transaction_id: transactionId, txid: mined.txid, confirmed_at: now, sent_at: now, updated_at: now, ...realFee })
      .where('transaction_id', 'in', [transactionId, ...family])
      .where('status', 'in', ['signed', 'broadcast'])
      .execute();
    return family;
  });
}

/**
 * Mined but it failed (an EVM call that reverted): its nonce and fee are spent and nothing was
 * paid. The transaction is `mined` (its real fee recorded), the rest of its family `replaced`, and
 * its payouts `failed` with the reason: signing them again could fail the same way and spend
 * fees each time, so the operator decides. Returns the family's other ids.
 */
export async function markReverted(db: Db, transactionId: string, now: Date, fee?: string): Promise<string[]> {
  return db.transaction().execute(async (tx) => {
    const mined = await tx
      .updateTable('payout_transactions')
      .set({ state: 'mined', mined_at: now, ...(fee === undefined ? {} : { fee }) })
      .where('id', '=', transactionId)
      .returning('txid')
      .executeTakeFirstOrThrow();
    const family = await replacementFamily(tx, transactionId);
    if (family.length > 0) {
      await tx.updateTable('payout_transactions').set({ state: 'replaced' }).where('id', 'in', family).where('state', 'in', ['signed', 'broadcast']).execute();
    }
    await tx
      .updateTable('payouts')
      .set({ status: 'failed', failure_reason: `reverted on chain: ${mined.txid}`, transaction_id: transactionId, txid: mined.txid, status_reason: null, updated_at: now })
      .where('transaction_id', 'in', [transactionId, ...family])
      .where('status', 'in', ['signed', 'broadcast'])
      .execute();
    return family;
  });
}

/** True when a newer transaction replaces this one (it is no longer the one to send or replace). */
export async function isReplaced(db: Db, transactionId: string): Promise<boolean> {
  const row = await db.selectFrom('payout_transactions').select('id').where('replaces_id', '=', transactionId).executeTakeFirst();
  return row !== undefined;
}

/**
 * Stores a replacement (same nonce, higher fees) of an in-flight transaction before it is
 * broadcast: a new row pointing at the one it replaces, and the payouts moved to it (the newest
 * is what they show until one of the family is mined). The replaced row stays in flight: it may
 * still be the one mined.
 */
export async function storeReplacement(
  tx: Db,
  replaced: string,
  row: { chain: string; txid: string; raw: string; fee: string; vsize: number | null; inputs: string[]; nonce: string | null; seen_unmined_at_block: string | null },
  now: Date,
): Promise<string> {
  const stored = await tx
    .insertInto('payout_transactions')
    .values({ ...row, replaces_id: replaced, created_at: now, broadcast_at: null, mined_at: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  await tx
    .updateTable('payouts')
    .set({ transaction_id: stored.id, txid: row.txid, updated_at: now })
    .where('transaction_id', '=', replaced)
    .where('status', 'in', ['signed', 'broadcast'])
    .execute();
  return stored.id;
}

export async function recordConfirmations(db: Db, transactionId: string, confirmations: number): Promise<void> {
  await db.updateTable('payout_transactions').set({ confirmations }).where('id', '=', transactionId).execute();
}

/**
 * The transaction can never be mined (a coin it spends was spent by another, mined one): it is
 * `conflicted` (with the rest of its replacement family, if any), and its payouts go back to
 * `requested` to be paid by a new transaction. The only case in which a payout is signed again.
 */
export async function markConflicted(db: Db, transactionId: string, now: Date): Promise<void> {
  await db.transaction().execute(async (tx) => {
    const ids = [transactionId, ...(await replacementFamily(tx, transactionId))];
    await tx.updateTable('payout_transactions').set({ state: 'conflicted' }).where('id', 'in', ids).where('state', 'in', ['signed', 'broadcast']).execute();
    await tx
      .updateTable('payouts')
      .set({ status: 'requested', transaction_id: null, txid: null, fee: null, signed_at: null, updated_at: now })
      .where('transaction_id', 'in', ids)
      .where('status', 'in', ['signed', 'broadcast'])
      .execute();
  });
}

/** Whether the operator paused `chain` or every chain (signer_pauses, migration 0053). */
export async function isPaused(db: Db, chain: string): Promise<boolean> {
  const row = await db.selectFrom('signer_pauses').select('chain').where('chain', 'in', [chain, '*']).executeTakeFirst();
  return row !== undefined;
}

/**
 * Paused: the chain's requested payouts say they wait for the pause to be lifted. Not paused:
 * those that said so no longer do (the ones claimed next get their own reason, if any).
 */
export async function showPause(db: Db, chain: string, paused: boolean, now: Date): Promise<void> {
  let query = db
    .updateTable('payouts')
    .set({ status_reason: paused ? 'paused' : null, updated_at: now })
    .where('payer', '=', 'signer')
    .where('chain', '=', chain)
    .where('status', '=', 'requested');
  query = paused
    ? query.where((eb) => eb.or([eb('status_reason', 'is', null), eb('status_reason', '!=', 'paused')]))
    : query.where('status_reason', '=', 'paused');
  await query.execute();
}

/** Starts (or restarts) an EVM transaction's replacement clock at `block` (migration 0054). */
export async function startReplacementClock(tx: Db, transactionId: string, block: bigint): Promise<void> {
  await tx.updateTable('payout_transactions').set({ seen_unmined_at_block: block.toString() }).where('id', '=', transactionId).execute();
}
