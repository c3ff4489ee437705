import { sql, type Kysely } from 'kysely';

/**
 * The status stream (docs/contract.md §10.11): every move of an order stores the Order as
 * GET /partner/orders/{id} answered it at that version, so a stream that reconnects with
 * `Last-Event-ID: {order id}:{version}` gets every version it missed, once and in order, from
 * whichever process it reaches (services/order-streams.ts). Version 0 (creation) is not stored:
 * a stream's first event is the order's current state, and a resume asks for later versions.
 * Kept ORDER_SNAPSHOT_HOURS (runtime.ts prunes by created_at); a resume past that gets the
 * current state.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table order_snapshots (
      order_id uuid not null references orders (id),
      version integer not null check (version > 0),
      status text not null,
      order_json text not null,
      created_at timestamptz not null,
      primary key (order_id, version)
    )
  `.execute(db);
  await sql`create index order_snapshots_created_at_idx on order_snapshots (created_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table order_snapshots`.execute(db);
}
