import { sql, type Kysely } from 'kysely';

/**
 * Operator-set USD prices (the `static` price source) with a sensible starting table for the
 * embedded default, and stored fixed-rate quotes, so any process can honour a quote_id.
 */
const STARTING_PRICES: Record<string, string> = {
  BTC: '67000', ETH: '3500', USDT: '1', USDC: '1', LTC: '85', DOGE: '0.15',
  TRX: '0.12', BNB: '600', SOL: '150', XRP: '0.55', XLM: '0.11', TON: '5.5',
};

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table static_prices (
      symbol text primary key check (symbol ~ '^[A-Z0-9]{1,12}$'),
      price_usd numeric(38, 18) not null check (price_usd > 0),
      updated_at timestamptz not null default now()
    )`.execute(db);
  for (const [symbol, price] of Object.entries(STARTING_PRICES)) {
    await sql`insert into static_prices (symbol, price_usd) values (${symbol}, ${price})`.execute(db);
  }

  await sql`
    create table fixed_quotes (
      id uuid primary key,
      partner_id uuid references partners (id),
      currency_from_id uuid not null references currencies (id),
      currency_to_id uuid not null references currencies (id),
      amount_from numeric(38, 18) not null check (amount_from > 0),
      amount_to numeric(38, 18) not null check (amount_to > 0),
      rate numeric(38, 18) not null,
      -- Locked by an order: up to 40 significant digits, no fixed scale.
      exact_rate numeric not null check (exact_rate > 0),
      created_at timestamptz not null,
      expires_at timestamptz not null,
      check (expires_at > created_at)
    )`.execute(db);
  await sql`create index fixed_quotes_expires_idx on fixed_quotes (expires_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table fixed_quotes`.execute(db);
  await sql`drop table static_prices`.execute(db);
}
