import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { LedgerPosting } from '../../domain/ledger.js';
import type { Db } from '../schema/index.js';

/**
 * The ledger (migration 0056): postings are appended, never changed. The caller owns the
 * transaction: an order's postings go in the transaction of the move that makes them, and the
 * database checks at commit that each balances per asset.
 */

/** Appends ledger transactions and their lines: two statements whatever their number. Returns their ids, in order. */
export async function postLedger(db: Db, postings: readonly LedgerPosting[], at: Date): Promise<string[]> {
  if (postings.length === 0) return [];
  // Ids made here, so each line names its transaction without relying on RETURNING's row order.
  const rows = postings.map((posting) => ({ id: randomUUID(), kind: posting.kind, order_id: posting.order_id, memo: posting.memo, actor: posting.actor, created_at: at }));
  await db.insertInto('ledger_transactions').values(rows).execute();
  const entries = postings.flatMap((posting, i) => posting.entries.map((entry) => ({ transaction_id: (rows[i] as { id: string }).id, ...entry })));
  await db.insertInto('ledger_entries').values(entries).execute();
  return rows.map((row) => row.id);
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

/** A line with its transaction, as the accountant's export lists it. */
export interface LedgerLineRow {
  created_at: Date;
  transaction_id: string;
  kind: string;
  account: string;
  asset: string;
  amount: string;
  order_id: string | null;
  partner_id: string | null;
  memo: string | null;
}

/** Every line of the ledger transactions made in [from, to), in the order they were posted. */
export async function ledgerLines(db: Db, from: Date, to: Date): Promise<LedgerLineRow[]> {
  return db
    .selectFrom('ledger_entries as e')
    .innerJoin('ledger_transactions as t', 't.id', 'e.transaction_id')
    .select(['t.created_at', 'e.transaction_id', 't.kind', 'e.account', 'e.asset', 'e.amount', 'e.order_id', 'e.partner_id', 't.memo'])
    .where('t.created_at', '>=', from)
    .where('t.created_at', '<', to)
    .orderBy('t.created_at')
    .orderBy('e.id')
    .execute();
}

/** What live signer payouts of one currency have taken from the hot wallet before the ledger posted them. */
export interface PayoutsInFlightRow {
  currency_id: string;
  /** The chain paid on: its own coin paid the fees. */
  chain: string;
  amount: string;
  /** Their shares of the network fees, in the chain's own coin ("0" before one is known). */
  fee: string;
}

/**
 * Signer payouts and refunds in a signed transaction (signed, broadcast, or confirmed before
 * the worker's move posts them: their order still sending or refunding), and commission payouts
 * signed or broadcast, per currency and chain (a currency may come twice: the caller sums).
 * The hot wallet's chain balance no longer has them, the ledger's still does.
 */
export async function payoutsInFlight(db: Db): Promise<PayoutsInFlightRow[]> {
  // Rows recorded before migration 0051 have no currency_id: the order's currency of the kind.
  const currency = sql<string>`coalesce(p.currency_id, case p.kind when 'payout' then o.currency_to_id else o.currency_from_id end)`;
  // A commission payout is posted in the statement that confirms it (migration 0066): in flight while signed or broadcast.
  const commissions = await db
    .selectFrom('payouts')
    .select([sql<string>`currency_id`.as('currency_id'), 'chain', sql<string>`sum(amount)`.as('amount'), sql<string>`coalesce(sum(fee), 0)`.as('fee')])
    .where('kind', '=', 'commission')
    .where('payer', '=', 'signer')
    .where('status', 'in', ['signed', 'broadcast'])
    .groupBy(['currency_id', 'chain'])
    .execute();
  const orders = await db
    .selectFrom('payouts as p')
    .innerJoin('orders as o', 'o.id', 'p.order_id')
    .select([
      currency.as('currency_id'),
      'p.chain',
      sql<string>`sum(p.amount)`.as('amount'),
      sql<string>`coalesce(sum(p.fee), 0)`.as('fee'),
    ])
    .where('p.payer', '=', 'signer')
    .where('p.status', 'in', ['signed', 'broadcast', 'confirmed'])
    .where('o.status', 'in', ['sending', 'refunding'])
    .where('o.sandbox', '=', false)
    .groupBy([currency, 'p.chain'])
    .execute();
  return [...orders, ...commissions];
}
