import { sql, type Kysely } from 'kysely';

/**
 * What the receiver answered to each webhook attempt, for the partner's delivery log: its
 * headers (names lowercased, at most 50, each value cut to 1,000 characters) and the first
 * 4 KiB of its body, exactly the bytes read (the sender never reads more). Null where no answer
 * came back, and on the attempts recorded before this migration. Additive: the previous
 * release's code neither reads nor writes them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table webhook_delivery_attempts add column response_headers jsonb`.execute(db);
  await sql`alter table webhook_delivery_attempts add column response_body bytea check (octet_length(response_body) <= 4096)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table webhook_delivery_attempts drop column response_body`.execute(db);
  await sql`alter table webhook_delivery_attempts drop column response_headers`.execute(db);
}
