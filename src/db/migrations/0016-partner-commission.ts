import { sql, type Kysely } from 'kysely';

/**
 * Partner commission (docs/contract.md §7.8): at the exchange moment an order records the
 * partner's markup share in coin_to (`partner_fee`), its USD value and the exchange's USD
 * volume at that moment's prices, and the moment itself (`exchanged_at`). The four are set
 * together, once, and never negative. Stats and the operator's commission report sum them over
 * a period of exchange moments, live orders only (the partial index).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table orders add column partner_fee numeric(38, 18) check (partner_fee >= 0)`.execute(db);
  await sql`alter table orders add column partner_fee_usd numeric(38, 18) check (partner_fee_usd >= 0)`.execute(db);
  await sql`alter table orders add column volume_usd numeric(38, 18) check (volume_usd >= 0)`.execute(db);
  await sql`alter table orders add column exchanged_at timestamptz`.execute(db);
  await sql`
    alter table orders add constraint orders_exchange_record_check check (
      (partner_fee is null) = (exchanged_at is null)
      and (partner_fee_usd is null) = (exchanged_at is null)
      and (volume_usd is null) = (exchanged_at is null)
    )
  `.execute(db);
  await sql`
    create index orders_partner_exchanged_idx on orders (partner_id, exchanged_at)
      where exchanged_at is not null and not sandbox
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index orders_partner_exchanged_idx`.execute(db);
  await sql`alter table orders drop constraint orders_exchange_record_check`.execute(db);
  for (const column of ['exchanged_at', 'volume_usd', 'partner_fee_usd', 'partner_fee']) {
    await sql.raw(`alter table orders drop column ${column}`).execute(db);
  }
}
