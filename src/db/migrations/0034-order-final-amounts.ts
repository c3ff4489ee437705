import { sql, type Kysely } from 'kysely';

/**
 * What an order really paid (docs/contract.md §10.1): `rate_final`, amount_to_final /
 * amount_from_received rounded down to coin_to's decimals, stored with amount_to_final at the
 * exchange, and `amount_refunded`, exactly what the refund sent (its payouts row's amount), stored
 * when it is sent. The Order shows amount_to_final and rate_final once the payout is sent.
 *
 * Orders already there: each refund already sent gets its row's amount; each exchanged order its
 * rate, computed as the exchange now does (an integer division, so exact to the last decimal).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table orders add column rate_final numeric(38, 18) check (rate_final >= 0)`.execute(db);
  await sql`alter table orders add column amount_refunded numeric(38, 18) check (amount_refunded >= 0)`.execute(db);
  await sql`
    update orders o set amount_refunded = p.amount
    from payouts p
    where p.order_id = o.id and p.kind = 'refund' and p.status = 'sent' and o.refund_txid is not null
  `.execute(db);
  await sql`
    update orders o
    set rate_final = div(o.amount_to_final * power(10::numeric, c.decimals), o.amount_from_received) * power(10::numeric, -c.decimals)
    from currencies c
    where c.id = o.currency_to_id and o.amount_to_final is not null and o.amount_from_received > 0
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table orders drop column amount_refunded`.execute(db);
  await sql`alter table orders drop column rate_final`.execute(db);
}
