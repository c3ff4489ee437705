import { sql, type Kysely } from 'kysely';

/**
 * Opening lines for the orders that exist when the ledger starts: an exchange that
 * upgrades has orders half-way (a deposit confirmed, a payout on its way) whose earlier moves
 * posted nothing, so their later moves would leave `payable` and `refunds` saying what the
 * ledger saw, not what is owed. Each such order gets one ledger transaction of kind `opening`
 * whose lines are what its moves would have posted by now (docs/adr/0039-ledger.md).
 *
 * `ledger_opening_lines()` says what that is, per order, account and asset, from the orders,
 * their audit trail and their payouts: it stays in the database, so an operator (and the
 * property test, against the lines the moves did post) can ask what the orders imply. Its
 * rules are those of the moves as they stand at this migration:
 * - a deposit is booked once confirmed (confirming → exchanging) or seen late (expired → refunding);
 * - until exchanged it is owed: `refunds` while the order is (or failed while) refunding, else
 *   `payable`; a refunded order's refund left the hot wallet (its payouts row, else
 *   amount_refunded);
 * - an exchange (exchanging → sending) moved the deposit to `revenue`, and took from `revenue`
 *   in coin_to the payout and the partner's fee, owed to the customer (until completed: then
 *   the payouts row's amount left the hot wallet) and the partner;
 * - the fee of a settled payout or refund (payouts.fee), and of a payout whose transaction was
 *   mined and reverted, is a network fee paid from the hot wallet in the chain's own coin.
 * Every order's lines balance per asset, as each move's do; the trigger checks it at commit.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table ledger_transactions drop constraint ledger_transactions_kind_check`.execute(db);
  await sql`
    alter table ledger_transactions add constraint ledger_transactions_kind_check
      check (kind in ('opening', 'deposit', 'exchange', 'refund_owed', 'refund_declined', 'payout', 'refund', 'network_fee', 'transfer'))
  `.execute(db);
  await sql`drop index ledger_transactions_once_per_order_idx`.execute(db);
  await sql`
    create unique index ledger_transactions_once_per_order_idx on ledger_transactions (order_id, kind)
      where kind in ('opening', 'deposit', 'exchange', 'payout', 'refund', 'network_fee')
  `.execute(db);
  await sql`
    create function ledger_asset(coin text, network text) returns text language sql immutable as $$
      select regexp_replace(upper(case when coin = network then coin else coin || '_' || network end), '[^A-Z0-9]', '_', 'g')
    $$`.execute(db);
  await sql`
    create function ledger_fee_asset(chain_code text) returns text language sql stable as $$
      select coalesce(
        (select ledger_asset(c.coin, c.network) from currencies c where c.chain = chain_code and c.token_contract is null order by c.created_at, c.id limit 1),
        ledger_asset(chain_code, chain_code))
    $$`.execute(db);
  await sql`
    create function ledger_opening_lines()
      returns table (order_id uuid, partner_id uuid, account text, asset text, amount numeric)
      language sql stable as $$
      with o as (
        select o.id, o.partner_id, o.status, o.sandbox,
               o.amount_from_received as r, coalesce(o.amount_to_final, 0) as t, coalesce(o.partner_fee, 0) as c,
               ledger_asset(cf.coin, cf.network) as a, ledger_asset(ct.coin, ct.network) as b,
               exists (select 1 from order_events e where e.order_id = o.id
                        and ((e.from_status = 'confirming' and e.to_status = 'exchanging') or (e.from_status = 'expired' and e.to_status = 'refunding'))) as credited,
               exists (select 1 from order_events e where e.order_id = o.id and e.from_status = 'exchanging' and e.to_status = 'sending') as filled,
               (select e.from_status from order_events e where e.order_id = o.id order by e.order_version desc limit 1) as last_from,
               (select p.amount from payouts p where p.order_id = o.id and p.kind = 'payout') as paid_out,
               coalesce((select p.amount from payouts p where p.order_id = o.id and p.kind = 'refund'), o.amount_refunded) as refunded
          from orders o
          join currencies cf on cf.id = o.currency_from_id
          join currencies ct on ct.id = o.currency_to_id
         where o.amount_from_received is not null
      ),
      booked as (
        select *, status = 'refunding' or (status = 'failed' and last_from = 'refunding') as refund_owed from o where credited
      ),
      lines as (
        select id, partner_id, sandbox, 'deposits' as account, a as asset, r as amount from booked
        union all select id, partner_id, sandbox, 'refunds', a, refunded - r from booked where status = 'refunded'
        union all select id, partner_id, sandbox, 'hot_wallet', a, -refunded from booked where status = 'refunded'
        union all select id, partner_id, sandbox, 'refunds', a, -r from booked where status <> 'refunded' and refund_owed
        union all select id, partner_id, sandbox, 'payable', a, -r from booked where status <> 'refunded' and not refund_owed and not filled
        union all select id, partner_id, sandbox, 'revenue', a, -r from booked where filled
        union all select id, partner_id, sandbox, 'revenue', b, t + c from booked where filled
        union all select id, partner_id, sandbox, 'partner_commission', b, -c from booked where filled
        union all select id, partner_id, sandbox, 'payable', b, -t from booked where filled
        union all select id, partner_id, sandbox, 'payable', b, coalesce(paid_out, t) from booked where filled and status = 'completed'
        union all select id, partner_id, sandbox, 'hot_wallet', b, -coalesce(paid_out, t) from booked where filled and status = 'completed'
        union all
        select o.id, o.partner_id, o.sandbox, f.account, ledger_fee_asset(p.chain), f.sign * p.fee
          from o join payouts p on p.order_id = o.id
          cross join (values ('network_fees', 1), ('hot_wallet', -1)) as f (account, sign)
         where p.fee is not null and ((p.kind = 'payout' and o.status = 'completed') or (p.kind = 'refund' and o.status = 'refunded'))
        union all
        select o.id, o.partner_id, o.sandbox, f.account, ledger_fee_asset(p.chain), f.sign * x.fee
          from o join payouts p on p.order_id = o.id and p.kind = 'payout' and p.status = 'failed'
          join payout_transactions x on x.id = p.transaction_id and x.state = 'mined'
          cross join (values ('network_fees', 1), ('hot_wallet', -1)) as f (account, sign)
         where exists (select 1 from order_events e where e.order_id = o.id and e.from_status = 'sending' and e.to_status = 'failed' and e.reason = 'payout_failed')
      )
      select id, partner_id, case when sandbox then 'sandbox:' || account else account end, asset, sum(amount)
        from lines group by id, partner_id, sandbox, account, asset having sum(amount) <> 0
    $$`.execute(db);
  await insertOpeningLines(db);
}

/**
 * The orders that exist now: what their moves would have posted, as one opening transaction
 * each (exported for the test that runs it on orders whose moves posted, and compares).
 */
export async function insertOpeningLines(db: Kysely<unknown>): Promise<void> {
  await sql`
    insert into ledger_transactions (kind, order_id, created_at)
    select 'opening', l.order_id, now() from (select distinct order_id from ledger_opening_lines()) as l
  `.execute(db);
  await sql`
    insert into ledger_entries (transaction_id, account, asset, amount, order_id, partner_id)
    select t.id, l.account, l.asset, l.amount, l.order_id, l.partner_id
      from ledger_opening_lines() as l join ledger_transactions t on t.order_id = l.order_id and t.kind = 'opening'
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop function ledger_opening_lines()`.execute(db);
  await sql`drop function ledger_fee_asset(text)`.execute(db);
  await sql`drop function ledger_asset(text, text)`.execute(db);
  // Opening lines stay, and the kind with them: the ledger is append-only, and 0056's down drops the tables.
  await sql`drop index ledger_transactions_once_per_order_idx`.execute(db);
  await sql`
    create unique index ledger_transactions_once_per_order_idx on ledger_transactions (order_id, kind)
      where kind in ('deposit', 'exchange', 'payout', 'refund', 'network_fee')
  `.execute(db);
}
