import { sql, type Kysely } from 'kysely';

/**
 * The operator finds an order by whatever a ticket quotes (GET /admin/v1/orders?q=): an address
 * or a transaction id, across every partner. The partner order list's search indexes led with the
 * partner (0009), so without these a search read every order. These serve the partner's own
 * search as well (an exact identifier matches a handful of rows, the partner is then a filter),
 * so 0009's four are dropped: an order insert maintains one index per column, not two. Partial
 * where the column is mostly empty; external ids are the partner's own and looked up across
 * partners too.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index orders_deposit_address_idx on orders (deposit_address)`.execute(db);
  await sql`create index orders_recipient_address_idx on orders (recipient_address)`.execute(db);
  await sql`create index orders_refund_address_idx on orders (refund_address) where refund_address is not null`.execute(db);
  await sql`create index orders_deposit_txid_idx on orders (deposit_txid) where deposit_txid is not null`.execute(db);
  await sql`create index orders_payout_txid_idx on orders (payout_txid) where payout_txid is not null`.execute(db);
  await sql`create index orders_refund_txid_idx on orders (refund_txid) where refund_txid is not null`.execute(db);
  await sql`create index orders_external_id_idx on orders (external_id) where external_id is not null`.execute(db);
  // A short id read out without its prefix (`7K2M9Q`): its last six characters.
  await sql`create index orders_short_id_suffix_idx on orders (right(short_id, 6))`.execute(db);
  for (const name of ['orders_partner_deposit_address_idx', 'orders_partner_deposit_txid_idx', 'orders_partner_payout_txid_idx', 'orders_partner_recipient_idx']) {
    await sql`drop index if exists ${sql.id(name)}`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`create index orders_partner_deposit_address_idx on orders (partner_id, deposit_address)`.execute(db);
  await sql`create index orders_partner_deposit_txid_idx on orders (partner_id, deposit_txid) where deposit_txid is not null`.execute(db);
  await sql`create index orders_partner_payout_txid_idx on orders (partner_id, payout_txid) where payout_txid is not null`.execute(db);
  await sql`create index orders_partner_recipient_idx on orders (partner_id, recipient_address)`.execute(db);
  for (const name of ['short_id_suffix', 'external_id', 'refund_txid', 'payout_txid', 'deposit_txid', 'refund_address', 'recipient_address', 'deposit_address']) {
    await sql`drop index if exists ${sql.id(`orders_${name}_idx`)}`.execute(db);
  }
}
