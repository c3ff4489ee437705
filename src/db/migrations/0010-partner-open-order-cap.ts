import { sql, type Kysely } from 'kysely';

/**
 * Pool drain: a partner's open orders awaiting a deposit are capped. The operator may
 * set the cap per partner (null: the server default, MAX_OPEN_ORDERS_PER_PARTNER). The partial
 * index serves the count at order creation and the pool release of the lifecycle worker.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table partners add column max_open_orders integer check (max_open_orders between 1 and 1000000)`.execute(db);
  await sql`create index orders_open_by_partner_idx on orders (partner_id, expires_at) where status = 'waiting_deposit'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index orders_open_by_partner_idx`.execute(db);
  await sql`alter table partners drop column max_open_orders`.execute(db);
}
