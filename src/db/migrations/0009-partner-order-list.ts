import { sql, type Kysely } from 'kysely';

/**
 * GET /partner/orders (docs/contract.md §7.2): one index per filter, each ending in (created_at, id), the
 * keyset order, so a page is a short backward index range scan; the search columns get one index
 * each (an OR of exact matches becomes a BitmapOr). All start with partner_id: a partner's list
 * never reads another's rows. The (partner_id, created_at) index of 0004 is a prefix of the
 * first one, so it goes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index orders_partner_list_idx on orders (partner_id, created_at, id)`.execute(db);
  await sql`drop index orders_partner_created_idx`.execute(db);
  await sql`create index orders_partner_status_list_idx on orders (partner_id, status, created_at, id)`.execute(db);
  await sql`create index orders_partner_coin_from_list_idx on orders (partner_id, coin_from, created_at, id)`.execute(db);
  await sql`create index orders_partner_coin_to_list_idx on orders (partner_id, coin_to, created_at, id)`.execute(db);
  await sql`create index orders_partner_deposit_address_idx on orders (partner_id, deposit_address)`.execute(db);
  await sql`create index orders_partner_deposit_txid_idx on orders (partner_id, deposit_txid) where deposit_txid is not null`.execute(db);
  await sql`create index orders_partner_payout_txid_idx on orders (partner_id, payout_txid) where payout_txid is not null`.execute(db);
  await sql`create index orders_partner_recipient_idx on orders (partner_id, recipient_address)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const name of [
    'orders_partner_recipient_idx',
    'orders_partner_payout_txid_idx',
    'orders_partner_deposit_txid_idx',
    'orders_partner_deposit_address_idx',
    'orders_partner_coin_to_list_idx',
    'orders_partner_coin_from_list_idx',
    'orders_partner_status_list_idx',
  ]) {
    await sql.raw(`drop index ${name}`).execute(db);
  }
  await sql`create index orders_partner_created_idx on orders (partner_id, created_at)`.execute(db);
  await sql`drop index orders_partner_list_idx`.execute(db);
}
