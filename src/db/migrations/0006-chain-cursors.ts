import { sql, type Kysely } from 'kysely';

/**
 * What the node watchers (src/chains/nodes) remember between passes and restarts: per chain,
 * the last block scanned and how the node last answered; per order, each deposit transaction
 * found and the block it sits in, so confirmations are counted and a reorg is noticed without
 * scanning again. Both live in the database so any worker process can pick up where another
 * stopped, and /readyz in the API process can show how the nodes are doing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table chain_cursors (
      chain text primary key check (chain ~ '^[A-Z0-9]{1,12}$'),
      network text,
      height bigint check (height >= 0),
      block_hash text,
      last_ok_at timestamptz,
      last_error text,
      last_error_at timestamptz,
      updated_at timestamptz not null,
      check ((height is null) = (block_hash is null))
    )`.execute(db);

  await sql`
    create table chain_deposits (
      order_id uuid not null references orders (id),
      txid text not null,
      chain text not null,
      amount numeric(38, 18) not null check (amount > 0),
      block_height bigint check (block_height >= 0),
      block_hash text,
      first_seen_at timestamptz not null,
      updated_at timestamptz not null,
      primary key (order_id, txid),
      check ((block_height is null) = (block_hash is null))
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table chain_deposits`.execute(db);
  await sql`drop table chain_cursors`.execute(db);
}
