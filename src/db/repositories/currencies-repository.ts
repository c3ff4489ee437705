import type { ChainRow } from '../schema/chains.js';
import type { CurrencyRow, CurrencyUpdate, NewCurrency } from '../schema/currencies.js';
import type { Db } from '../schema/index.js';

/** The whole catalog, active or not, in listing order. It is small (tens of rows). */
export async function listCurrencies(db: Db): Promise<CurrencyRow[]> {
  return db.selectFrom('currencies').selectAll().orderBy('sort_order').orderBy('coin').orderBy('network').execute();
}

/** Every chain's facts (migration 0045); a handful of rows. */
export async function listChains(db: Db): Promise<ChainRow[]> {
  return db.selectFrom('chains').selectAll().orderBy('code').execute();
}

export async function findCurrency(db: Db, id: string): Promise<CurrencyRow | undefined> {
  return db.selectFrom('currencies').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateCurrency(db: Db, id: string, changes: CurrencyUpdate): Promise<CurrencyRow | undefined> {
  return db
    .updateTable('currencies')
    .set({ ...changes, updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** A new catalog row (POST /admin/v1/currencies); a taken coin and network is a unique violation. */
export async function insertCurrency(db: Db, row: NewCurrency): Promise<CurrencyRow> {
  return db.insertInto('currencies').values(row).returningAll().executeTakeFirstOrThrow();
}
