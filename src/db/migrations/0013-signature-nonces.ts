import { sql, type Kysely } from 'kysely';

/**
 * Replay-proof signing (docs/contract.md §7.7): each accepted timestamped signature once, across every
 * API process sharing the database (when Redis is not configured). A row lives until its
 * timestamp can no longer be accepted; expired rows are deleted in batches.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table signature_nonces (
      id text primary key,
      expires_at timestamptz not null
    )
  `.execute(db);
  await sql`create index signature_nonces_expires_idx on signature_nonces (expires_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table signature_nonces`.execute(db);
}
