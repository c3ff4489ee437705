import { sql, type Kysely } from 'kysely';

/**
 * Orders, their audit trail, deposit-address allocation and idempotency keys.
 * `chain` groups catalog networks that share one address space (ETH and ERC20 tokens live on
 * one chain), so two orders on one chain never share a deposit address.
 */
const CHAINS: Record<string, string> = {
  'BTC:BTC': 'BTC', 'ETH:ETH': 'ETH', 'USDT:ERC20': 'ETH', 'USDC:ERC20': 'ETH',
  'USDT:TRC20': 'TRON', 'TRX:TRX': 'TRON', 'USDT:BEP20': 'BSC', 'BNB:BEP20': 'BSC',
  'LTC:LTC': 'LTC', 'DOGE:DOGE': 'DOGE', 'SOL:SOL': 'SOL', 'XRP:XRP': 'XRP', 'XLM:XLM': 'XLM', 'TON:TON': 'TON',
};

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table currencies add column chain text`.execute(db);
  for (const [pair, chain] of Object.entries(CHAINS)) {
    const [coin, network] = pair.split(':');
    await sql`update currencies set chain = ${chain} where coin = ${coin} and network = ${network}`.execute(db);
  }
  await sql`update currencies set chain = network where chain is null`.execute(db);
  await sql`alter table currencies alter column chain set not null`.execute(db);
  await sql`alter table currencies add constraint currencies_chain_check check (chain ~ '^[A-Z0-9]{1,12}$')`.execute(db);

  // One derivation-index / memo-tag sequence per chain: no row is locked to hand out an index.
  for (const chain of new Set(Object.values(CHAINS))) {
    await sql.raw(`create sequence if not exists deposit_index_${chain.toLowerCase()} minvalue 0 start 0`).execute(db);
  }

  await sql`
    create table orders (
      id uuid primary key,
      short_id text not null unique check (short_id ~ '^[A-Z0-9]{1,8}-[A-Z0-9]{6}$'),
      partner_id uuid not null references partners (id),
      status text not null check (status in ('waiting_deposit', 'confirming', 'exchanging', 'sending',
        'completed', 'expired', 'refunding', 'refunded', 'failed')),
      status_reason text,
      version integer not null default 0,
      currency_from_id uuid not null references currencies (id),
      currency_to_id uuid not null references currencies (id),
      coin_from text not null,
      network_from text not null,
      coin_to text not null,
      network_to text not null,
      rate_type text not null check (rate_type in ('float', 'fixed')),
      amount_from_expected numeric(38, 18) not null check (amount_from_expected > 0),
      amount_to_expected numeric(38, 18) not null check (amount_to_expected > 0),
      rate_quoted numeric(38, 18) not null check (rate_quoted >= 0),
      exact_rate numeric not null check (exact_rate > 0),
      quote_id uuid unique references fixed_quotes (id) on delete set null,
      deposit_address text not null,
      deposit_address_tag text,
      recipient_address text not null,
      recipient_address_tag text,
      refund_address text,
      deposit_txid text,
      deposit_confirmations integer check (deposit_confirmations >= 0),
      deposit_confirmations_required integer not null check (deposit_confirmations_required >= 0),
      amount_from_received numeric(38, 18),
      payout_txid text,
      refund_txid text,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      updated_at timestamptz not null,
      check (expires_at > created_at),
      check ((deposit_txid is null) = (deposit_confirmations is null))
    )`.execute(db);
  await sql`create index orders_partner_created_idx on orders (partner_id, created_at)`.execute(db);
  await sql`create index orders_status_expires_idx on orders (status, expires_at)`.execute(db);

  await sql`
    create table order_events (
      id uuid primary key default gen_random_uuid(),
      order_id uuid not null references orders (id),
      from_status text,
      to_status text not null,
      reason text,
      data jsonb,
      created_at timestamptz not null
    )`.execute(db);
  await sql`create index order_events_order_idx on order_events (order_id, created_at)`.execute(db);

  await sql`
    create table deposit_addresses (
      id uuid primary key default gen_random_uuid(),
      chain text not null,
      address text not null,
      -- '' rather than null: a unique index treats nulls as distinct.
      tag text not null default '',
      strategy text not null check (strategy in ('hd', 'memo', 'pool')),
      derivation_index bigint,
      order_id uuid references orders (id),
      created_at timestamptz not null default now(),
      assigned_at timestamptz,
      check ((order_id is null) = (assigned_at is null))
    )`.execute(db);
  await sql`create unique index deposit_addresses_unique_idx on deposit_addresses (chain, address, tag)`.execute(db);
  await sql`create unique index deposit_addresses_order_idx on deposit_addresses (order_id)`.execute(db);
  await sql`create index deposit_addresses_free_idx on deposit_addresses (chain, created_at) where order_id is null`.execute(db);

  await sql`
    create table idempotency_keys (
      partner_id uuid not null references partners (id),
      key text not null,
      request_hash bytea not null,
      order_id uuid references orders (id),
      created_at timestamptz not null,
      primary key (partner_id, key)
    )`.execute(db);
  await sql`create index idempotency_keys_created_idx on idempotency_keys (created_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table idempotency_keys`.execute(db);
  await sql`drop table deposit_addresses`.execute(db);
  await sql`drop table order_events`.execute(db);
  await sql`drop table orders`.execute(db);
  for (const chain of new Set(Object.values(CHAINS))) {
    await sql.raw(`drop sequence if exists deposit_index_${chain.toLowerCase()}`).execute(db);
  }
  await sql`alter table currencies drop column chain`.execute(db);
}
