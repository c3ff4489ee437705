import { sql, type Kysely } from 'kysely';

/**
 * What the hot wallet can pay, per currency, what the signer saw of each chain's fees and node,
 * and when it first saw an EVM transaction unmined (docs/contract.md §11.7): the signer writes each
 * currency of its chains after every pass; the API subtracts the payouts not yet in a signed
 * transaction and refuses quotes and orders whose payout the rest cannot cover.
 *
 * `spendable` is what the signer itself could sign with now, before fees: confirmed coins that
 * none of its stored transactions spends (Bitcoin family), or the balance at the latest block
 * less what its transactions in flight can still take (EVM). So a payout in a signed or
 * broadcast transaction is already out of it, and one still waiting (requested, awaiting an
 * approval) is not. The signer's role writes the table; nothing else does.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table hot_wallet_balances (
      currency_id uuid primary key references currencies (id),
      chain text not null,
      spendable numeric(38, 18) not null check (spendable >= 0),
      read_at timestamptz not null
    )`.execute(db);
  // Per chain, what the signer's last pass saw of the fee and the node (docs/contract.md §11.7: a bounded
  // estimate is never used silently): the API exports it as gauges, alert rules watch them.
  await sql`
    create table signer_chain_readings (
      chain text primary key,
      fee_unit text not null,
      fee_estimate numeric(38, 18),
      fee_used numeric(38, 18),
      fee_bounds text[] not null default '{}',
      node_behind text,
      read_at timestamptz not null
    )`.execute(db);
  // The EVM replacement clock, in the database: a signer restarted (or another one following
  // the same transaction) replaces it EVM_REPLACE_AFTER_BLOCKS after it was first seen unmined,
  // not that many blocks after its own start.
  await sql`alter table payout_transactions add column seen_unmined_at_block bigint`.execute(db);
  // What the API subtracts (payouts not yet in a signed transaction), read every few seconds by
  // each process: an index of those rows only, not a scan of every payout ever made.
  await sql`
    create index payouts_waiting_signature_idx on payouts (currency_id) include (amount)
      where payer = 'signer' and status in ('requested', 'awaiting_approval')
  `.execute(db);
  await sql`
    do $$
    begin
      if exists (select 1 from pg_roles where rolname = 'exchange_signer') then
        grant select, insert, update on hot_wallet_balances, signer_chain_readings to exchange_signer;
      end if;
    end
    $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index payouts_waiting_signature_idx`.execute(db);
  await sql`alter table payout_transactions drop column seen_unmined_at_block`.execute(db);
  await sql`drop table signer_chain_readings`.execute(db);
  await sql`drop table hot_wallet_balances`.execute(db);
}
