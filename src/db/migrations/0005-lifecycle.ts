import { sql, type Kysely } from 'kysely';

/**
 * What the lifecycle worker needs: scheduling columns on orders (lease, retry backoff), the
 * payout/refund outbox (one request per order and kind, recorded with the transition), and the
 * simulator's own state, kept in the database so every process sees one simulated world.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table orders add column amount_to_final numeric(38, 18)`.execute(db);
  await sql`alter table orders add column attempts integer not null default 0`.execute(db);
  await sql`alter table orders add column next_attempt_at timestamptz`.execute(db);
  await sql`alter table orders add column locked_until timestamptz`.execute(db);
  await sql`create index orders_due_idx on orders (status, next_attempt_at)
    where status in ('exchanging', 'sending', 'refunding')`.execute(db);

  await sql`
    create table payouts (
      id uuid primary key default gen_random_uuid(),
      order_id uuid not null references orders (id),
      kind text not null check (kind in ('payout', 'refund')),
      chain text not null,
      address text not null,
      tag text,
      amount numeric(38, 18) not null check (amount > 0),
      status text not null default 'requested' check (status in ('requested', 'sent', 'failed')),
      txid text,
      created_at timestamptz not null,
      sent_at timestamptz,
      unique (order_id, kind)
    )`.execute(db);

  await sql`
    create table simulated_deposits (
      order_id uuid primary key references orders (id),
      txid text not null,
      amount numeric(38, 18) not null check (amount > 0),
      confirmations integer not null default 0 check (confirmations >= 0),
      dropped boolean not null default false,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`.execute(db);

  await sql`
    create table simulator_faults (
      step text primary key check (step in ('exchange', 'payout', 'refund')),
      remaining integer not null check (remaining >= 0),
      permanent boolean not null default false
    )`.execute(db);

  await sql`
    create table simulated_sends (
      idempotency_key text primary key,
      txid text not null,
      address text not null,
      amount numeric(38, 18) not null,
      created_at timestamptz not null
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table simulated_sends`.execute(db);
  await sql`drop table simulator_faults`.execute(db);
  await sql`drop table simulated_deposits`.execute(db);
  await sql`drop table payouts`.execute(db);
  await sql`drop index orders_due_idx`.execute(db);
  for (const column of ['locked_until', 'next_attempt_at', 'attempts', 'amount_to_final']) {
    await sql.raw(`alter table orders drop column ${column}`).execute(db);
  }
}
