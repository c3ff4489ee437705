import { sql, type Kysely } from 'kysely';

/**
 * What a quote told of an order's cost and time, stored when the order is created so it never
 * changes afterwards (docs/contract.md §10.6):
 * - `network_fee`: the payout network fee in coin_to the pricing deducted from amount_to (the
 *   destination currency's payout_fee at creation), and `network_fee_usd`, its USD value at the
 *   creation's price (8 places, rounded down, as partner_fee_usd);
 * - `eta_seconds`: deposit confirmations × the deposit chain's block time + the payout chain's
 *   payout allowance (migration 0045's chains).
 * Orders made before this migration were not priced with them: all three stay null there (the
 * Order shows null), rather than a guess from today's catalog. Set together or not at all.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table orders add column network_fee numeric(38, 18) check (network_fee >= 0)`.execute(db);
  await sql`alter table orders add column network_fee_usd numeric(38, 18) check (network_fee_usd >= 0)`.execute(db);
  await sql`alter table orders add column eta_seconds integer check (eta_seconds >= 0)`.execute(db);
  await sql`
    alter table orders add constraint orders_network_fee_eta_together_check
      check ((network_fee is null) = (network_fee_usd is null) and (network_fee is null) = (eta_seconds is null))
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table orders drop constraint orders_network_fee_eta_together_check`.execute(db);
  await sql`alter table orders drop column eta_seconds`.execute(db);
  await sql`alter table orders drop column network_fee_usd`.execute(db);
  await sql`alter table orders drop column network_fee`.execute(db);
}
