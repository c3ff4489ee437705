import { sql, type Kysely } from 'kysely';

/**
 * A fixed quote asked by amount_to (docs/contract.md §7.1, a reverse quote) keeps the amount asked, so an
 * order that sends the same amount_to with the quote's id matches it. Null for a quote asked by
 * amount (or by nothing: the pair's minimum).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table fixed_quotes add column amount_to_requested numeric(38, 18) check (amount_to_requested > 0)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table fixed_quotes drop column amount_to_requested`.execute(db);
}
