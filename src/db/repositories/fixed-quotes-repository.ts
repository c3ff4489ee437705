import type { FixedQuoteRow } from '../schema/fixed-quotes.js';
import type { Db } from '../schema/index.js';

export async function insertFixedQuote(db: Db, quote: FixedQuoteRow): Promise<void> {
  await db.insertInto('fixed_quotes').values(quote).execute();
}

export async function findFixedQuote(db: Db, id: string): Promise<FixedQuoteRow | undefined> {
  return db.selectFrom('fixed_quotes').selectAll().where('id', '=', id).executeTakeFirst();
}

/** One idempotent statement; returns how many expired quotes it removed. */
export async function purgeFixedQuotesBefore(db: Db, cutoff: Date): Promise<number> {
  const result = await db.deleteFrom('fixed_quotes').where('expires_at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}
