import { sql, type Kysely } from 'kysely';

/**
 * The facts of each chain a wallet maps a Currency by, and that quotes time (docs/contract.md §10.6, §10.7):
 * one row per `currencies.chain` code, which now references it, so no
 * currency names a chain without facts.
 *
 * - `name`: the chain as the API shows it (`bitcoin`, `ethereum`, `bsc`), separate from the token
 *   standard the currency's `network` code names (ERC20, BEP20).
 * - `caip2`: the CAIP-2 chain id under the namespace registered for the chain (docs/adr/0031-chains-in-the-catalog.md,
 *   for the ones whose namespace is still a draft).
 * - `slip44`: the SLIP-44 coin type of the chain's native coin (CAIP-19 `…/slip44:N`).
 * - `token_namespace`: the CAIP-19 asset namespace of the chain's tokens (`erc20`, `trc20`,
 *   `token`), null where the catalog has no token on the chain's standard.
 * - `block_time_ms`: the chain's average block (slot, ledger) interval: a deposit's
 *   confirmations take that long each. Milliseconds, as BNB Smart Chain's is under a second.
 * - `payout_seconds`: from the exchange to the payout seen on chain: signing, broadcast and the
 *   first block of this chain (the payout allowance of an ETA).
 * - `memo_name`: what the chain's wallets call the tag a shared account is routed by, null where
 *   the chain has none.
 * Operator estimates, not consensus values: updated by a later migration when a chain changes.
 */
interface ChainSeed {
  code: string;
  name: string;
  caip2: string;
  slip44: number;
  token_namespace: string | null;
  block_time_ms: number;
  payout_seconds: number;
  memo_name: string | null;
}

const CHAINS: ChainSeed[] = [
  { code: 'BTC', name: 'bitcoin', caip2: 'bip122:000000000019d6689c085ae165831e93', slip44: 0, token_namespace: null, block_time_ms: 600_000, payout_seconds: 660, memo_name: null },
  { code: 'ETH', name: 'ethereum', caip2: 'eip155:1', slip44: 60, token_namespace: 'erc20', block_time_ms: 12_000, payout_seconds: 72, memo_name: null },
  { code: 'TRON', name: 'tron', caip2: 'tron:728126428', slip44: 195, token_namespace: 'trc20', block_time_ms: 3_000, payout_seconds: 63, memo_name: null },
  { code: 'BSC', name: 'bsc', caip2: 'eip155:56', slip44: 714, token_namespace: 'erc20', block_time_ms: 750, payout_seconds: 61, memo_name: null },
  { code: 'LTC', name: 'litecoin', caip2: 'bip122:12a765e31ffd4059bada1e25190f6e98', slip44: 2, token_namespace: null, block_time_ms: 150_000, payout_seconds: 210, memo_name: null },
  { code: 'DOGE', name: 'dogecoin', caip2: 'bip122:1a91e3dace36e2be3bf030a65679fe82', slip44: 3, token_namespace: null, block_time_ms: 60_000, payout_seconds: 120, memo_name: null },
  { code: 'SOL', name: 'solana', caip2: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', slip44: 501, token_namespace: 'token', block_time_ms: 400, payout_seconds: 61, memo_name: null },
  { code: 'XRP', name: 'xrpl', caip2: 'xrpl:0', slip44: 144, token_namespace: null, block_time_ms: 4_000, payout_seconds: 64, memo_name: 'Destination tag' },
  { code: 'XLM', name: 'stellar', caip2: 'stellar:pubnet', slip44: 148, token_namespace: null, block_time_ms: 6_000, payout_seconds: 66, memo_name: 'Memo' },
  { code: 'TON', name: 'ton', caip2: 'tvm:-239', slip44: 607, token_namespace: null, block_time_ms: 5_000, payout_seconds: 65, memo_name: 'Memo' },
];

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table chains (
      code text primary key check (code ~ '^[A-Z0-9]{1,12}$'),
      name text not null unique check (name ~ '^[a-z0-9][a-z0-9-]{0,31}$'),
      caip2 text not null unique check (caip2 ~ '^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$'),
      slip44 integer not null check (slip44 >= 0),
      token_namespace text check (token_namespace ~ '^[-a-z0-9]{3,8}$'),
      block_time_ms integer not null check (block_time_ms > 0),
      payout_seconds integer not null check (payout_seconds >= 0),
      memo_name text check (length(memo_name) between 1 and 40)
    )
  `.execute(db);
  await (db as Kysely<{ chains: ChainSeed }>).insertInto('chains').values(CHAINS).execute();
  // A currency on a chain without facts would publish none: the migration stops and names it.
  const unknown = await sql<{ chain: string }>`select distinct chain from currencies where chain not in (select code from chains)`.execute(db);
  if (unknown.rows.length > 0) {
    throw new Error(`currencies on chains this migration has no facts for: ${unknown.rows.map((row) => row.chain).join(', ')}`);
  }
  await sql`alter table currencies add constraint currencies_chain_fkey foreign key (chain) references chains (code)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table currencies drop constraint currencies_chain_fkey`.execute(db);
  await sql`drop table chains`.execute(db);
}
