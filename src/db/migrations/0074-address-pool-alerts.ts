import { sql, type Kysely } from 'kysely';

/**
 * The low-pool alert threshold an operator sets per deposit address pool (a chain whose
 * addresses are loaded, not derived): the pool is low while it has fewer free addresses than
 * `low_at`. A chain without a row uses the service's default (docs/adr/0059-console-pools-and-stuck-orders.md).
 * Additive: the previous release's code neither reads nor writes it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table address_pool_alerts (
      chain text primary key check (chain ~ '^[A-Z0-9]{1,12}$'),
      low_at integer not null check (low_at between 0 and 1000000000),
      updated_at timestamptz not null
    )
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table address_pool_alerts`.execute(db);
}
