import { sql, type Kysely } from 'kysely';

/**
 * Sandbox keys and orders (docs/contract.md §7.6). A key's `sandbox` flag and its `pk_test_` prefix say
 * the same thing, and the CHECK keeps them so: a partner reading the key and the service reading
 * the row can never disagree about whether orders made with it run live. An order's `sandbox`
 * is copied from the key that created it and never changes; the worker picks the simulator's
 * adapters from it, the node watchers never see such an order, and lists and counts keep the
 * two apart. Existing keys and orders are live (false).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table api_keys add column sandbox boolean not null default false`.execute(db);
  await sql`
    alter table api_keys add constraint api_keys_sandbox_prefix_check
      check (sandbox = (left(key_id, 8) = 'pk_test_'))
  `.execute(db);
  await sql`alter table orders add column sandbox boolean not null default false`.execute(db);
  // GET /partner/orders?sandbox=true: a partner's test orders, newest first, without walking its
  // live ones (the 0009 indexes serve the live list, where sandbox = false filters few rows).
  await sql`create index orders_partner_sandbox_created_idx on orders (partner_id, created_at, id) where sandbox`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index orders_partner_sandbox_created_idx`.execute(db);
  await sql`alter table orders drop column sandbox`.execute(db);
  await sql`alter table api_keys drop constraint api_keys_sandbox_prefix_check`.execute(db);
  await sql`alter table api_keys drop column sandbox`.execute(db);
}
