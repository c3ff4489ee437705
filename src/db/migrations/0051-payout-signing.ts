import { sql, type Kysely } from 'kysely';

/**
 * Real payouts (docs/contract.md §11.2): the payouts table becomes the signer's work queue.
 *
 * - `payer`: who pays the row, fixed when it is recorded: `signer` for live payouts on
 *   PAYOUT_SIGNER_CHAINS, else `simulator`. The signer claims only its own rows, so no payout is
 *   both signed and simulated when the two configurations disagree.
 * - States: `requested` → (`awaiting_approval` →) `signed` (raw transaction stored) → `broadcast`
 *   → `confirmed`, or `failed` with `failure_reason`. `sent` stays for payouts the simulator
 *   settles (the embedded default and the sandbox), which have no transaction to track.
 * - `payout_transactions`: every transaction the signer made, stored BEFORE it is broadcast, so
 *   a signer that crashes after signing broadcasts the same bytes (same txid) again instead of
 *   signing anew. One transaction may pay several payouts (a batch); an EVM replacement is a new
 *   row pointing at the one it replaces. `inputs` are the outpoints it spends: no other
 *   transaction may pick them while it is in flight.
 * - `hot_wallet_indexes`: the next change address index per chain, moved in the transaction
 *   that stores the signed transaction, so no two transactions share a change address.
 * - `signer_payout_checks`: what the signer checks a payout against, from the order (what it
 *   says must be paid) and the deposit addresses (never pay one of our own), as one view, so
 *   the signer's role reads those facts without reading those tables.
 * - The role `exchange_signer` (NOLOGIN) holds the signer's grants: the payout tables, that view
 *   and the currency catalog, nothing else; on payouts it may update the state columns only,
 *   never what a payout pays or who approved it. An operator makes a login role in it for the signer
 *   (docs/security.md). Roles belong to the cluster: made once, tolerated when it exists or when
 *   the migrating user may not make roles (then the operator makes it; the GRANTs still need it).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table payouts drop constraint payouts_status_check`.execute(db);
  await sql`
    alter table payouts add constraint payouts_status_check
      check (status in ('requested', 'awaiting_approval', 'signed', 'broadcast', 'confirmed', 'sent', 'failed'))
  `.execute(db);
  await sql`
    alter table payouts
      add column payer text not null default 'simulator' check (payer in ('simulator', 'signer')),
      add column currency_id uuid references currencies (id),
      add column status_reason text,
      add column failure_reason text,
      add column approved_by text,
      add column approved_at timestamptz,
      add column transaction_id uuid,
      add column fee numeric(38, 18),
      add column signed_at timestamptz,
      add column confirmed_at timestamptz,
      add column updated_at timestamptz
  `.execute(db);
  await sql`create index payouts_signer_queue_idx on payouts (chain, created_at) where payer = 'signer' and status in ('requested', 'signed', 'broadcast')`.execute(db);

  await sql`
    create table payout_transactions (
      id uuid primary key default gen_random_uuid(),
      chain text not null,
      txid text not null,
      raw text not null,
      fee numeric(38, 18) not null check (fee >= 0),
      vsize integer,
      inputs text[] not null default '{}',
      nonce bigint,
      replaces_id uuid references payout_transactions (id),
      state text not null default 'signed' check (state in ('signed', 'broadcast', 'mined', 'replaced', 'conflicted')),
      confirmations integer not null default 0,
      created_at timestamptz not null,
      broadcast_at timestamptz,
      mined_at timestamptz,
      unique (chain, txid)
    )`.execute(db);
  await sql`alter table payouts add constraint payouts_transaction_fk foreign key (transaction_id) references payout_transactions (id)`.execute(db);
  await sql`create index payout_transactions_in_flight_idx on payout_transactions (chain) where state in ('signed', 'broadcast')`.execute(db);

  await sql`
    create table hot_wallet_indexes (
      chain text primary key,
      next_change_index integer not null default 0 check (next_change_index >= 0)
    )`.execute(db);

  await sql`
    create view signer_payout_checks as
      select p.id as payout_id,
             case p.kind when 'payout' then o.amount_to_final else o.amount_from_received end as expected_amount,
             o.sandbox,
             exists (select 1 from deposit_addresses d where d.chain = p.chain and d.address = p.address) as to_own_address
        from payouts p join orders o on o.id = p.order_id
  `.execute(db);

  await sql`
    do $$
    begin
      if not exists (select 1 from pg_roles where rolname = 'exchange_signer') then
        create role exchange_signer nologin;
      end if;
    exception
      when duplicate_object or unique_violation then null; -- another database of the cluster made it first
      when insufficient_privilege then raise notice 'exchange_signer not created: the operator makes it (docs/security.md)';
    end
    $$`.execute(db);
  await sql`
    do $$
    begin
      if exists (select 1 from pg_roles where rolname = 'exchange_signer') then
        grant select on payouts to exchange_signer;
        -- What a payout pays (order, address, tag, amount, currency, payer) and its approval are
        -- never the signer's to change: it moves the states and records what it sent.
        grant update (status, status_reason, failure_reason, transaction_id, txid, fee, signed_at, confirmed_at, sent_at, updated_at)
          on payouts to exchange_signer;
        grant select, insert, update on payout_transactions, hot_wallet_indexes to exchange_signer;
        grant select on signer_payout_checks, currencies to exchange_signer;
      end if;
    end
    $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    do $$
    begin
      if exists (select 1 from pg_roles where rolname = 'exchange_signer') then
        revoke all on payouts, payout_transactions, hot_wallet_indexes, signer_payout_checks, currencies from exchange_signer;
      end if;
    end
    $$`.execute(db);
  await sql`drop view signer_payout_checks`.execute(db);
  await sql`drop table hot_wallet_indexes`.execute(db);
  await sql`alter table payouts drop constraint payouts_transaction_fk`.execute(db);
  await sql`drop table payout_transactions`.execute(db);
  await sql`drop index payouts_signer_queue_idx`.execute(db);
  for (const column of ['payer', 'currency_id', 'status_reason', 'failure_reason', 'approved_by', 'approved_at', 'transaction_id', 'fee', 'signed_at', 'confirmed_at', 'updated_at']) {
    await sql.raw(`alter table payouts drop column ${column}`).execute(db);
  }
  await sql`update payouts set status = 'requested' where status not in ('requested', 'sent', 'failed')`.execute(db);
  await sql`alter table payouts drop constraint payouts_status_check`.execute(db);
  await sql`alter table payouts add constraint payouts_status_check check (status in ('requested', 'sent', 'failed'))`.execute(db);
}
