import { sql, type Kysely } from 'kysely';

/**
 * Client keys (docs/contract.md §10.9): a key a partner ships inside an app.
 *
 * - `api_keys.scope`: `full` (every key until now) or `client`. A client key's id starts
 *   `pk_client_` (`pk_client_test_` in sandbox), and the checks keep id and columns saying the
 *   same thing, as 0014 did for `pk_test_`: whoever reads the key and the service reading the
 *   row never disagree about what it may do. 0014's prefix check is replaced by one that knows
 *   the sandbox client prefix.
 * - `orders.created_by_key_id`: the key that created the order. A client key reads only the
 *   orders it created; order_events has the creating key too, but a read by id should not join
 *   the audit trail. Orders made before this migration name none (null): no client key made
 *   them. No foreign key: the order outlives a key.
 * - `partners.cors_origins`: the web origins (`https://wallet.example`) whose pages may call
 *   the client-key routes from a browser (CORS); empty by default (no page may).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table api_keys add column scope text not null default 'full' check (scope in ('full', 'client'))`.execute(db);
  await sql`alter table api_keys drop constraint api_keys_sandbox_prefix_check`.execute(db);
  await sql`
    alter table api_keys add constraint api_keys_sandbox_prefix_check
      check (sandbox = (left(key_id, 8) = 'pk_test_' or left(key_id, 15) = 'pk_client_test_'))
  `.execute(db);
  await sql`
    alter table api_keys add constraint api_keys_scope_prefix_check
      check ((scope = 'client') = (left(key_id, 10) = 'pk_client_'))
  `.execute(db);

  await sql`alter table orders add column created_by_key_id text check (length(created_by_key_id) <= 64)`.execute(db);

  await sql`alter table partners add column cors_origins text[] not null default '{}'`.execute(db);
  await sql`alter table partners add constraint partners_cors_origins_count_check check (cardinality(cors_origins) <= 20)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table partners drop constraint partners_cors_origins_count_check`.execute(db);
  await sql`alter table partners drop column cors_origins`.execute(db);
  await sql`alter table orders drop column created_by_key_id`.execute(db);
  await sql`alter table api_keys drop constraint api_keys_scope_prefix_check`.execute(db);
  await sql`alter table api_keys drop constraint api_keys_sandbox_prefix_check`.execute(db);
  await sql`alter table api_keys add constraint api_keys_sandbox_prefix_check check (sandbox = (left(key_id, 8) = 'pk_test_'))`.execute(db);
  await sql`alter table api_keys drop column scope`.execute(db);
}
