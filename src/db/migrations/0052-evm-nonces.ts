import { sql, type Kysely } from 'kysely';

/**
 * EVM nonces (docs/contract.md §11.7): the next nonce of each hot-wallet address per chain,
 * reserved in the database so that no two transactions share a nonce and none is skipped,
 * whatever the number of signers.
 *
 * A signer reads the row under the chain's advisory lock (the payout loop holds it while it
 * signs) and moves it in the same transaction that stores the signed transaction: a nonce is
 * taken only together with the transaction that uses it. The signer starts from the node's
 * pending transaction count when the row is missing or behind the chain (the account was used
 * elsewhere). A replacement reuses its transaction's nonce and takes none.
 *
 * The signer's role (exchange_signer, migration 0051) may read and move it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table evm_nonces (
      chain text not null,
      address text not null,
      next_nonce bigint not null check (next_nonce >= 0),
      primary key (chain, address)
    )`.execute(db);
  await sql`
    do $$
    begin
      if exists (select 1 from pg_roles where rolname = 'exchange_signer') then
        grant select, insert, update on evm_nonces to exchange_signer;
      end if;
    end
    $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    do $$
    begin
      if exists (select 1 from pg_roles where rolname = 'exchange_signer') then
        revoke all on evm_nonces from exchange_signer;
      end if;
    end
    $$`.execute(db);
  await sql`drop table evm_nonces`.execute(db);
}
