import { sql, type Kysely } from 'kysely';

/**
 * The order's deposit payment URI (docs/contract.md §7.4), written once at creation from the deposit
 * currency's row (format, chain, token contract, decimals) and the order's deposit: stored rather
 * than rebuilt per read, so the order view reads only order columns and a later catalog edit
 * never changes a URI a user may already have scanned. Null where the chain has no standard URI;
 * orders created before this migration stay null (they were shown none).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table orders add column deposit_uri text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table orders drop column deposit_uri`.execute(db);
}
