import { sql } from 'kysely';
import type { Db } from '../schema/index.js';
import type { ChainCurrency } from '../../signer/chain-payer.js';

/** The currencies of one chain, as the signer pays them (its role reads the catalog). */
export function chainCurrencies(db: Db, chain: string): Promise<ChainCurrency[]> {
  return db.selectFrom('currencies').select(['id', 'decimals', 'token_contract']).where('chain', '=', chain).orderBy('id').execute();
}

/** The signer's reading of what a chain's hot wallet can pay, per currency (migration 0054). */
export async function publishSpendable(db: Db, chain: string, spendable: ReadonlyMap<string, string>, now: Date): Promise<void> {
  const rows = [...spendable].map(([currency_id, amount]) => ({ currency_id, chain, spendable: amount, read_at: now }));
  if (rows.length === 0) return;
  await db
    .insertInto('hot_wallet_balances')
    .values(rows)
    .onConflict((conflict) =>
      conflict.column('currency_id').doUpdateSet({ chain: sql`excluded.chain`, spendable: sql`excluded.spendable`, read_at: sql`excluded.read_at` }),
    )
    .execute();
}

export interface CurrencyLiquidity {
  currency_id: string;
  /** The signer's last reading (hot_wallet_balances.spendable). */
  spendable: string;
  /** What payouts of the currency still wait for a signature (requested, awaiting an approval). */
  waiting: string;
  read_at: Date;
}

/**
 * Every currency the signer published, with what its waiting payouts will take (docs/contract.md §11.7:
 * balance minus pending payouts). One statement; the waiting sum reads the partial index of
 * migration 0054, not the payouts table.
 */
export function currencyLiquidity(db: Db): Promise<CurrencyLiquidity[]> {
  return db
    .selectFrom('hot_wallet_balances as b')
    .leftJoin(
      (eb) =>
        eb
          .selectFrom('payouts')
          .select(['currency_id', sql<string>`sum(amount)`.as('waiting')])
          .where('payer', '=', 'signer')
          .where('status', 'in', ['requested', 'awaiting_approval'])
          .groupBy('currency_id')
          .as('w'),
      (join) => join.onRef('w.currency_id', '=', 'b.currency_id'),
    )
    .select(['b.currency_id', 'b.spendable', 'b.read_at', sql<string>`coalesce(w.waiting, 0)`.as('waiting')])
    .execute();
}

export interface ChainReading {
  chain: string;
  fee_unit: string;
  fee_estimate: string | null;
  fee_used: string | null;
  fee_bounds: string[];
  node_behind: string | null;
}

/** The signer's reading of a chain's fee and node, after each pass. */
export async function publishChainReading(db: Db, reading: ChainReading, now: Date): Promise<void> {
  await db
    .insertInto('signer_chain_readings')
    .values({ ...reading, read_at: now })
    .onConflict((conflict) =>
      conflict.column('chain').doUpdateSet({
        fee_unit: reading.fee_unit,
        fee_estimate: reading.fee_estimate,
        fee_used: reading.fee_used,
        fee_bounds: reading.fee_bounds,
        node_behind: reading.node_behind,
        read_at: now,
      }),
    )
    .execute();
}

/** Every chain the signer reported on. */
export function chainReadings(db: Db): Promise<(ChainReading & { read_at: Date })[]> {
  return db.selectFrom('signer_chain_readings').selectAll().execute();
}

/** Every currency's last reading of the hot wallet, as the signer published it (for the treasury, docs/contract.md §11.5). */
export function hotWalletReadings(db: Db): Promise<{ currency_id: string; spendable: string; read_at: Date }[]> {
  return db.selectFrom('hot_wallet_balances').select(['currency_id', 'spendable', 'read_at']).execute();
}
