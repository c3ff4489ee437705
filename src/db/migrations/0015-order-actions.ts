import { sql, type Kysely } from 'kysely';

/**
 * Order actions (docs/contract.md §7.5): a refund address may come later (with its tag, for a
 * deposit chain that routes by memo), a refund may be held for the partner's choice (continue or
 * refund) until `refund_hold_until`, and a continued order is re-priced at the float rate
 * (`continued_at`). Every audit row names who made the move (`actor`): existing creation rows were
 * the partner's, operator failures the operator's, the rest the system's.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table orders add column refund_address_tag text`.execute(db);
  await sql`alter table orders add column refund_hold_until timestamptz`.execute(db);
  await sql`alter table orders add column continued_at timestamptz`.execute(db);
  // A hold exists only while the order is refunding; a tag only with its address.
  await sql`
    alter table orders add constraint orders_refund_hold_check
      check (refund_hold_until is null or status = 'refunding')
  `.execute(db);
  await sql`
    alter table orders add constraint orders_refund_tag_check
      check (refund_address_tag is null or refund_address is not null)
  `.execute(db);

  await sql`alter table order_events add column actor text not null default 'system'`.execute(db);
  await sql`update order_events set actor = 'partner' where from_status is null`.execute(db);
  await sql`update order_events set actor = 'operator' where reason = 'operator'`.execute(db);
  await sql`
    alter table order_events add constraint order_events_actor_check
      check (actor in ('partner', 'operator', 'system'))
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table order_events drop constraint order_events_actor_check`.execute(db);
  await sql`alter table order_events drop column actor`.execute(db);
  await sql`alter table orders drop constraint orders_refund_tag_check`.execute(db);
  await sql`alter table orders drop constraint orders_refund_hold_check`.execute(db);
  for (const column of ['continued_at', 'refund_hold_until', 'refund_address_tag']) {
    await sql.raw(`alter table orders drop column ${column}`).execute(db);
  }
}
