import { sql, type Kysely } from 'kysely';

/**
 * The end user's status page (docs/contract.md §10.10): every order gets `status_token`, the
 * unguessable part of its public link `/status/{token}` (and of GET /api/v1/public/orders/{token}).
 * New orders get 32 base64url characters (192 random bits) from the service; orders made before
 * this migration, and rows written without one, get 64 hex digits from two random UUIDs (244
 * random bits: the column's default). Stored as it is (the
 * Order shows the link, so it cannot be a one-way hash) and found through its unique index:
 * never by a short id. Not null: every order has its page.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // A volatile default is evaluated per row: every existing order gets its own token.
  await sql`
    alter table orders add column status_token text not null
      default replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', '')
  `.execute(db);
  await sql`alter table orders add constraint orders_status_token_check check (status_token ~ '^[A-Za-z0-9_-]{32,64}$')`.execute(db);
  await sql`create unique index orders_status_token_key on orders (status_token)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index orders_status_token_key`.execute(db);
  await sql`alter table orders drop column status_token`.execute(db);
}
