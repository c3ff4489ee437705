import { sql, type Kysely } from 'kysely';

// Invariants live in the schema too (CHECK and UNIQUE), so no code path can store a row the
// service could not serve. Migrations are never edited after they land: add a new one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table currencies (
      id uuid primary key default gen_random_uuid(),
      coin text not null check (coin ~ '^[A-Z0-9]{1,12}$'),
      network text not null check (network ~ '^[A-Z0-9]{1,12}$'),
      name text not null check (length(name) between 1 and 64),
      is_active boolean not null default true,
      is_deposit_enabled boolean not null default true,
      is_withdraw_enabled boolean not null default true,
      decimals integer not null check (decimals between 0 and 18),
      min_amount numeric(38, 18) not null check (min_amount > 0),
      max_amount numeric(38, 18) not null,
      min_confirmations integer not null check (min_confirmations between 0 and 10000),
      is_memo boolean not null default false,
      explorer_tx_url text check (explorer_tx_url like '%{txid}%'),
      explorer_address_url text check (explorer_address_url like '%{address}%'),
      icon_url text,
      payout_fee numeric(38, 18) not null default 0 check (payout_fee >= 0),
      address_format text not null check (address_format in
        ('bitcoin', 'litecoin', 'dogecoin', 'evm', 'tron', 'solana', 'xrp', 'stellar', 'ton')),
      deposit_strategy text not null check (deposit_strategy in ('hd', 'memo', 'pool')),
      price_symbol text not null check (price_symbol ~ '^[A-Z0-9]{1,12}$'),
      token_contract text,
      sort_order integer not null default 0,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (coin, network),
      check (max_amount >= min_amount),
      -- Amounts never carry more digits than the coin has.
      check (min_amount = trunc(min_amount, decimals)),
      check (max_amount = trunc(max_amount, decimals)),
      check (payout_fee = trunc(payout_fee, decimals))
    )`.execute(db);

  await sql`
    create table partners (
      id uuid primary key default gen_random_uuid(),
      name text not null check (length(name) between 1 and 100),
      status text not null default 'active' check (status in ('active', 'suspended')),
      markup_bps integer not null default 0 check (markup_bps between 0 and 1000),
      rate_limit_per_minute integer not null default 600 check (rate_limit_per_minute between 1 and 1000000),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db);

  await sql`
    create table api_keys (
      key_id text primary key check (key_id ~ '^[a-z0-9_]{8,64}$'),
      partner_id uuid not null references partners (id),
      secret_hash bytea not null check (length(secret_hash) = 32),
      secret_ciphertext bytea not null,
      created_at timestamptz not null default now(),
      revoked_at timestamptz
    )`.execute(db);
  await sql`create index api_keys_partner_idx on api_keys (partner_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table api_keys`.execute(db);
  await sql`drop table partners`.execute(db);
  await sql`drop table currencies`.execute(db);
}
