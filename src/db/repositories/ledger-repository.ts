import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { LedgerPosting } from '../../domain/ledger.js';
import type { Db } from '../schema/index.js';

/**
 * The ledger (migration 0056): postings are appended, never changed. The caller owns the
 * transaction: an order's postings go in the transaction of the move that makes them, and the
 * database checks at commit that each balances per asset.
 */

/** Appends ledger transactions and their lines: two statements whatever their number. */
export async function postLedger(db: Db, postings: readonly LedgerPosting[], at: Date): Promise<void> {
  if (postings.length === 0) return;
  // Ids made here, so each line names its transaction without relying on RETURNING's row order.
  const rows = postings.map((posting) => ({ id: randomUUID(), kind: posting.kind, order_id: posting.order_id, memo: posting.memo, created_at: at }));
  await db.insertInto('ledger_transactions').values(rows).execute();
  const entries = postings.flatMap((posting, i) => posting.entries.map((entry) => ({ transaction_id: (rows[i] as { id: string }).id, ...entry })));
  await db.insertInto('ledger_entries').values(entries).execute();
}

/** One account's balance in one asset: the sum of its lines (debit positive), as stored (scale as summed). */
export interface AccountBalanceRow {
  account: string;
  asset: string;
  balance: string;
}

/** Every account's balance per asset, over the ledger transactions made at or before `at` (all when undefined). */
export async function accountBalances(db: Db, at?: Date): Promise<AccountBalanceRow[]> {
  let query = db
    .selectFrom('ledger_entries as e')
    .innerJoin('ledger_transactions as t', 't.id', 'e.transaction_id')
    .select(['e.account', 'e.asset', sql<string>`sum(e.amount)`.as('balance')])
    .groupBy(['e.account', 'e.asset'])
    .orderBy('e.asset')
    .orderBy('e.account');
  if (at !== undefined) query = query.where('t.created_at', '<=', at);
  return query.execute();
}
