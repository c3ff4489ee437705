import { sql, type Kysely } from 'kysely';

/**
 * The double-entry ledger (docs/contract.md §11.4; the chart and posting rules are in
 * docs/adr/0039-ledger.md). The books are kept by the database, not by the code alone:
 *
 * - Every amount is signed (debit positive, credit negative), exact `numeric` with no scale, so
 *   nothing posted is ever rounded; a line of zero is refused (it says nothing).
 * - Balanced: a DEFERRED constraint trigger checks, when the database transaction commits, that
 *   each ledger transaction it touched sums to zero in every asset, and that no ledger
 *   transaction is left without lines. A transaction that does not balance cannot commit, and
 *   with it the order move that posted it is rolled back.
 * - Append-only: updates, deletes and truncates of either table are refused by triggers;
 *   corrections are new entries.
 * - The accounts are a closed set (with their `sandbox:` twins for sandbox orders); a `payable`
 *   or `refunds` line names its order and a `partner_commission` line its partner.
 * - An operator's transfer (kind `transfer`: funding the hot wallet, a sweep from the deposit
 *   addresses) names no order but says why (`memo`) and who (`actor`); an order's posting names
 *   its order and neither.
 * - An order posts each of `deposit`, `exchange`, `payout`, `refund` and `network_fee` at most once (a unique
 *   index); `refund_owed` and `refund_declined` repeat as an order goes to refunding and is continued.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table ledger_transactions (
      id uuid primary key default gen_random_uuid(),
      kind text not null check (kind in ('deposit', 'exchange', 'refund_owed', 'refund_declined', 'payout', 'refund', 'network_fee', 'transfer')),
      order_id uuid references orders (id),
      memo text check (char_length(memo) <= 500),
      actor text check (char_length(actor) <= 100),
      created_at timestamptz not null,
      check ((kind = 'transfer') = (order_id is null)),
      check ((kind = 'transfer') = (memo is not null and actor is not null))
    )`.execute(db);
  await sql`create index ledger_transactions_created_idx on ledger_transactions (created_at)`.execute(db);
  await sql`
    create unique index ledger_transactions_once_per_order_idx on ledger_transactions (order_id, kind)
      where kind in ('deposit', 'exchange', 'payout', 'refund', 'network_fee')
  `.execute(db);

  await sql`
    create table ledger_entries (
      id bigint generated always as identity primary key,
      transaction_id uuid not null references ledger_transactions (id),
      account text not null check (
        account ~ '^(sandbox:)?(deposits|hot_wallet|payable|refunds|partner_commission|revenue|network_fees|equity)$'
      ),
      asset text not null check (asset ~ '^[A-Z0-9_]{1,40}$'),
      amount numeric not null check (amount <> 0),
      order_id uuid references orders (id),
      partner_id uuid references partners (id),
      check (order_id is not null or account !~ '(^|:)(payable|refunds)$'),
      check (partner_id is not null or account !~ '(^|:)partner_commission$')
    )`.execute(db);
  await sql`create index ledger_entries_transaction_idx on ledger_entries (transaction_id)`.execute(db);
  await sql`create index ledger_entries_order_idx on ledger_entries (order_id) where order_id is not null`.execute(db);
  await sql`create index ledger_entries_account_idx on ledger_entries (account, asset)`.execute(db);

  // Balanced per asset, checked at commit (deferred): the lines of one ledger transaction are
  // inserted in any order, and only the whole must balance.
  await sql`
    create function ledger_transaction_balances() returns trigger language plpgsql as $$
    declare
      unbalanced text;
    begin
      select string_agg(asset || ' ' || total::text, ', ' order by asset) into unbalanced
        from (select asset, sum(amount) as total from ledger_entries
               where transaction_id = new.transaction_id group by asset having sum(amount) <> 0) as sums;
      if unbalanced is not null then
        raise exception 'ledger transaction % does not balance: %', new.transaction_id, unbalanced
          using errcode = 'check_violation';
      end if;
      return null;
    end
    $$`.execute(db);
  await sql`
    create constraint trigger ledger_entries_balanced after insert on ledger_entries
      deferrable initially deferred for each row execute function ledger_transaction_balances()
  `.execute(db);
  await sql`
    create function ledger_transaction_has_entries() returns trigger language plpgsql as $$
    begin
      if not exists (select 1 from ledger_entries where transaction_id = new.id) then
        raise exception 'ledger transaction % has no entries', new.id using errcode = 'check_violation';
      end if;
      return null;
    end
    $$`.execute(db);
  await sql`
    create constraint trigger ledger_transactions_not_empty after insert on ledger_transactions
      deferrable initially deferred for each row execute function ledger_transaction_has_entries()
  `.execute(db);

  await sql`
    create function ledger_append_only() returns trigger language plpgsql as $$
    begin
      raise exception '% is append-only: % refused (a correction is a new entry)', tg_table_name, lower(tg_op)
        using errcode = 'object_not_in_prerequisite_state';
    end
    $$`.execute(db);
  for (const table of ['ledger_transactions', 'ledger_entries']) {
    await sql`
      create trigger ${sql.raw(`${table}_append_only`)} before update or delete on ${sql.table(table)}
        for each row execute function ledger_append_only()
    `.execute(db);
    await sql`
      create trigger ${sql.raw(`${table}_no_truncate`)} before truncate on ${sql.table(table)}
        for each statement execute function ledger_append_only()
    `.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table ledger_entries`.execute(db);
  await sql`drop table ledger_transactions`.execute(db);
  await sql`drop function ledger_append_only()`.execute(db);
  await sql`drop function ledger_transaction_has_entries()`.execute(db);
  await sql`drop function ledger_transaction_balances()`.execute(db);
}
