import { sql, type Kysely } from 'kysely';

/**
 * The markup an order is priced with, stored on it (docs/contract.md §10.1): a fixed order's is
 * the one inside its quote, a float order's the one at creation (the exchange prices it again with
 * it), a continued order's the one of that re-pricing. The partner's commission (partner_fee) is
 * computed from it; before, the exchange used the partner's markup of that moment, so a markup
 * changed between the quote and the deposit paid at one rate and recorded the other's fee.
 *
 * Orders already there (docs/adr/0013-order-pricing-and-final-amounts.md): an order whose
 * exchange recorded a commission gets the markup that commission was computed with, read back
 * from it (partner_fee_usd / volume_usd, both at that moment's prices, rounded to a whole bps), so
 * the stored markup explains the recorded figure and no recorded commission changes; any other
 * order gets its partner's markup now, the one the previous release would have applied at its
 * exchange.
 *
 * A process of the previous release, still running during a rolling deploy, writes orders without
 * it: the trigger fills a missing one with the partner's markup at the insert, the markup of
 * creation, so the column can be NOT NULL from this release on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table orders add column markup_bps integer check (markup_bps between 0 and 10000)`.execute(db);
  await sql`
    update orders o set markup_bps = coalesce(
      case when o.volume_usd > 0
        then least(10000, greatest(0, round(o.partner_fee_usd * 10000 / o.volume_usd)))::integer
      end,
      p.markup_bps)
    from partners p where p.id = o.partner_id
  `.execute(db);
  await sql`alter table orders alter column markup_bps set not null`.execute(db);
  await sql`
    create function orders_markup_at_creation() returns trigger
    language plpgsql as $$
    begin
      select markup_bps into new.markup_bps from partners where id = new.partner_id;
      return new;
    end
    $$
  `.execute(db);
  await sql`
    create trigger orders_markup_at_creation before insert on orders
      for each row when (new.markup_bps is null) execute function orders_markup_at_creation()
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger orders_markup_at_creation on orders`.execute(db);
  await sql`drop function orders_markup_at_creation()`.execute(db);
  await sql`alter table orders drop column markup_bps`.execute(db);
}
