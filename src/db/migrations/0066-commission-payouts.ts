import { sql, type Kysely } from 'kysely';

/**
 * Commission payouts (docs/contract.md §11.6; docs/decisions.md, "Commission payouts"):
 *
 * - `partner_payout_addresses`: where a partner's commission is paid, per currency. A change is
 *   a new row effective 24 hours after it was asked for (`effective_at`); the address in force
 *   at a moment is the newest row effective by then and not cancelled. Rows are never changed
 *   but to cancel one still pending.
 * - `payouts` gets a third kind, `commission`, that belongs to a partner and a period (`YYYY-MM`)
 *   instead of an order: one per partner, currency and period, held by a unique index, so an
 *   operator who runs the payment twice pays once.
 * - The signer checks a commission payout's amount against the ledger, not against the row
 *   (`commission_earned()`, used by `signer_payout_checks`): what the partner's
 *   `partner_commission` account was credited in that period and currency, rounded down to the
 *   currency's decimals. A row asking for more is refused by the signer's policy.
 * - Its ledger transaction (kind `commission_payout`, naming the payout) is posted by a trigger
 *   in the very statement that settles the payout (`confirmed` by the signer, `sent` by the
 *   simulator): partner_commission debited, hot_wallet credited, and its network fee from the
 *   hot wallet to network_fees. The signer's role writes no ledger table itself; the trigger's
 *   function runs as its owner (SECURITY DEFINER) and posts only from the payouts row.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table partner_payout_addresses (
      id uuid primary key default gen_random_uuid(),
      partner_id uuid not null references partners (id),
      currency_id uuid not null references currencies (id),
      address text not null check (char_length(address) between 1 and 200),
      tag text check (char_length(tag) between 1 and 100),
      requested_by uuid references cabinet_users (id),
      requested_at timestamptz not null,
      effective_at timestamptz not null,
      cancelled_at timestamptz,
      cancelled_by uuid references cabinet_users (id),
      check (effective_at >= requested_at)
    )`.execute(db);
  await sql`create index partner_payout_addresses_lookup_idx on partner_payout_addresses (partner_id, currency_id, effective_at desc) where cancelled_at is null`.execute(db);

  await sql`alter table payouts drop constraint payouts_kind_check`.execute(db);
  await sql`alter table payouts add constraint payouts_kind_check check (kind in ('payout', 'refund', 'commission'))`.execute(db);
  await sql`alter table payouts alter column order_id drop not null`.execute(db);
  await sql`
    alter table payouts
      add column partner_id uuid references partners (id),
      add column period text check (period ~ '^[0-9]{4}-(0[1-9]|1[0-2])$')
  `.execute(db);
  await sql`
    alter table payouts add constraint payouts_commission_shape check (
      case when kind = 'commission' then order_id is null and partner_id is not null and period is not null and currency_id is not null
           else order_id is not null and partner_id is null and period is null end)
  `.execute(db);
  await sql`create unique index payouts_commission_once_idx on payouts (partner_id, currency_id, period) where kind = 'commission'`.execute(db);

  // The ledger learns the kind: no order, but the payout it settles, once.
  await sql`
    do $$
    declare
      name text;
    begin
      for name in select conname from pg_constraint
                   where conrelid = 'ledger_transactions'::regclass and contype = 'c' and pg_get_constraintdef(oid) like '%order_id%'
      loop
        execute format('alter table ledger_transactions drop constraint %I', name);
      end loop;
    end
    $$`.execute(db);
  await sql`alter table ledger_transactions drop constraint ledger_transactions_kind_check`.execute(db);
  await sql`
    alter table ledger_transactions add constraint ledger_transactions_kind_check
      check (kind in ('opening', 'deposit', 'exchange', 'refund_owed', 'refund_declined', 'payout', 'refund', 'network_fee', 'transfer', 'commission_payout'))
  `.execute(db);
  await sql`alter table ledger_transactions add column payout_id uuid references payouts (id)`.execute(db);
  await sql`alter table ledger_transactions add constraint ledger_transactions_order_check check ((kind in ('transfer', 'commission_payout')) = (order_id is null))`.execute(db);
  await sql`alter table ledger_transactions add constraint ledger_transactions_payout_check check ((kind = 'commission_payout') = (payout_id is not null))`.execute(db);
  await sql`create unique index ledger_transactions_once_per_payout_idx on ledger_transactions (payout_id) where payout_id is not null`.execute(db);

  // domain/asset-name.ts in SQL: one spelling of an asset everywhere.
  await sql`
    create function ledger_asset_name(coin text, network text) returns text language sql immutable as $$
      select regexp_replace(upper(case when coin = network then coin else coin || '_' || network end), '[^A-Z0-9]', '_', 'g')
    $$`.execute(db);
  await sql`
    create function commission_earned(partner uuid, currency uuid, period text) returns numeric language sql stable as $$
      select trunc(coalesce((
               select -sum(e.amount)
                 from ledger_entries e join ledger_transactions t on t.id = e.transaction_id
                where e.account = 'partner_commission' and e.partner_id = partner
                  and e.asset = ledger_asset_name(c.coin, c.network)
                  and t.kind <> 'commission_payout'
                  and t.created_at >= (period || '-01T00:00:00Z')::timestamptz
                  and t.created_at < (period || '-01T00:00:00Z')::timestamptz + interval '1 month'), 0), c.decimals)
        from currencies c where c.id = currency
    $$`.execute(db);

  await sql`drop view signer_payout_checks`.execute(db);
  await sql`
    create view signer_payout_checks as
      select p.id as payout_id,
             case p.kind when 'payout' then o.amount_to_final
                         when 'refund' then o.amount_from_received
                         else commission_earned(p.partner_id, p.currency_id, p.period) end as expected_amount,
             coalesce(o.sandbox, false) as sandbox,
             exists (select 1 from deposit_addresses d where d.chain = p.chain and d.address = p.address) as to_own_address
        from payouts p left join orders o on o.id = p.order_id
  `.execute(db);
  await sql`
    do $$
    begin
      if exists (select 1 from pg_roles where rolname = 'exchange_signer') then
        grant select on signer_payout_checks to exchange_signer;
      end if;
    end
    $$`.execute(db);

  await sql`
    create function post_commission_payout() returns trigger language plpgsql security definer as $$
    declare
      transaction_id uuid := gen_random_uuid();
      asset text;
      fee_asset text;
    begin
      select ledger_asset_name(c.coin, c.network) into asset from currencies c where c.id = new.currency_id;
      -- The chain's own coin pays its fees (CurrencyCatalog.feeAssetOf).
      fee_asset := coalesce(
        (select ledger_asset_name(c.coin, c.network) from currencies c where c.chain = new.chain and c.token_contract is null order by c.coin limit 1),
        ledger_asset_name(new.chain, new.chain));
      insert into ledger_transactions (id, kind, payout_id, created_at)
        values (transaction_id, 'commission_payout', new.id, coalesce(new.confirmed_at, new.sent_at, now()));
      insert into ledger_entries (transaction_id, account, asset, amount, partner_id)
        values (transaction_id, 'partner_commission', asset, new.amount, new.partner_id),
               (transaction_id, 'hot_wallet', asset, -new.amount, null);
      if coalesce(new.fee, 0) > 0 then
        insert into ledger_entries (transaction_id, account, asset, amount)
          values (transaction_id, 'network_fees', fee_asset, new.fee),
                 (transaction_id, 'hot_wallet', fee_asset, -new.fee);
      end if;
      return null;
    end
    $$`.execute(db);
  await sql`
    create trigger payouts_commission_posted after update of status on payouts
      for each row when (new.kind = 'commission' and new.status in ('confirmed', 'sent') and old.status not in ('confirmed', 'sent'))
      execute function post_commission_payout()
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger payouts_commission_posted on payouts`.execute(db);
  await sql`drop function post_commission_payout()`.execute(db);
  await sql`drop view signer_payout_checks`.execute(db);
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
      if exists (select 1 from pg_roles where rolname = 'exchange_signer') then
        grant select on signer_payout_checks to exchange_signer;
      end if;
    end
    $$`.execute(db);
  await sql`drop function commission_earned(uuid, uuid, text)`.execute(db);
  await sql`drop function ledger_asset_name(text, text)`.execute(db);
  // Commission postings stay (the ledger is append-only): their kind and payout column with them.
  await sql`delete from payouts where kind = 'commission'`.execute(db);
  await sql`drop index payouts_commission_once_idx`.execute(db);
  await sql`alter table payouts drop constraint payouts_commission_shape`.execute(db);
  await sql`alter table payouts drop column partner_id, drop column period`.execute(db);
  await sql`alter table payouts alter column order_id set not null`.execute(db);
  await sql`alter table payouts drop constraint payouts_kind_check`.execute(db);
  await sql`alter table payouts add constraint payouts_kind_check check (kind in ('payout', 'refund'))`.execute(db);
  await sql`drop table partner_payout_addresses`.execute(db);
}
