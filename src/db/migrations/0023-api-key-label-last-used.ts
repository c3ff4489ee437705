import { sql, type Kysely } from 'kysely';

/**
 * The cabinet's key list (docs/contract.md §9): a label the partner gives a key when it creates one, and
 * when the key was last used. last_used_at is written in batches from memory (at most once a
 * minute per process, ApiKeyService.flushUses), never on a request's path.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table api_keys add column label text check (length(label) between 1 and 64)`.execute(db);
  await sql`alter table api_keys add column last_used_at timestamptz`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table api_keys drop column last_used_at`.execute(db);
  await sql`alter table api_keys drop column label`.execute(db);
}
