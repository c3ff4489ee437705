import { sql, type Kysely } from 'kysely';

/**
 * The order's version after each event: the audit trail's true order. Moves made in one
 * worker pass can share a millisecond timestamp, so created_at alone cannot order them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table order_events add column order_version integer`.execute(db);
  await sql`create unique index order_events_version_idx on order_events (order_id, order_version)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index order_events_version_idx`.execute(db);
  await sql`alter table order_events drop column order_version`.execute(db);
}
