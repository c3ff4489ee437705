import { sql, type Kysely } from 'kysely';

/**
 * Sandbox orders (docs/contract.md §7.6) apart from the operator's wallet: `deposit_addresses.strategy`
 * gains `sandbox`. A sandbox order's deposit address is made by the service from random bytes
 * (domain/deposit-addresses/sandbox-addresses.ts), never derived from the operator's xpub nor
 * taken from a memo address or a pool. It is still recorded, so the unique (chain, address, tag)
 * index guarantees it never equals a live order's address; as `sandbox` it is no pool row (the
 * pool release and counts read `pool` only) and has no derivation index.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table deposit_addresses drop constraint deposit_addresses_strategy_check`.execute(db);
  await sql`
    alter table deposit_addresses add constraint deposit_addresses_strategy_check
      check (strategy in ('hd', 'memo', 'pool', 'sandbox'))
  `.execute(db);
  // A sandbox address is the service's own random one: nothing to derive it again from.
  await sql`
    alter table deposit_addresses add constraint deposit_addresses_sandbox_index_check
      check (strategy <> 'sandbox' or derivation_index is null)
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table deposit_addresses drop constraint deposit_addresses_sandbox_index_check`.execute(db);
  await sql`alter table deposit_addresses drop constraint deposit_addresses_strategy_check`.execute(db);
  await sql`alter table deposit_addresses add constraint deposit_addresses_strategy_check check (strategy in ('hd', 'memo', 'pool'))`.execute(db);
}
