import { sql, type Kysely } from 'kysely';

/**
 * Fixed quotes are signed tokens: issuing one writes nothing, so `fixed_quotes` goes,
 * and `orders.quote_id` (still unique: an order holding a quote's id is the record that the quote
 * was spent) no longer references it. Quotes stored before this migration are not honoured after
 * it: they expire within FIXED_QUOTE_TTL_SECONDS anyway, and an order presenting one gets 422
 * quote_invalid and asks again. Orders keep the quote id they locked.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table orders drop constraint orders_quote_id_fkey`.execute(db);
  await sql`drop table fixed_quotes`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table fixed_quotes (
      id uuid primary key,
      partner_id uuid references partners (id),
      currency_from_id uuid not null references currencies (id),
      currency_to_id uuid not null references currencies (id),
      amount_from numeric(38, 18) not null check (amount_from > 0),
      amount_to numeric(38, 18) not null check (amount_to > 0),
      amount_to_requested numeric(38, 18) check (amount_to_requested > 0),
      rate numeric(38, 18) not null,
      exact_rate numeric not null check (exact_rate > 0),
      created_at timestamptz not null,
      expires_at timestamptz not null,
      check (expires_at > created_at)
    )`.execute(db);
  await sql`create index fixed_quotes_expires_idx on fixed_quotes (expires_at)`.execute(db);
  // Orders locked quotes that no longer exist as rows: the reference holds for new orders only.
  await sql`
    alter table orders add constraint orders_quote_id_fkey
      foreign key (quote_id) references fixed_quotes (id) on delete set null not valid
  `.execute(db);
}
