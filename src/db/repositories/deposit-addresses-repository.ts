import { sql } from 'kysely';
import type { Db } from '../schema/index.js';

/**
 * Deposit addresses ever handed out or loaded into a pool (docs/contract.md §5). The unique index on
 * (chain, address, tag) is the last word: an address is never handed out twice.
 */

/**
 * `count` numbers of the chain's sequence in one statement (a block of HD indexes or memo tags,
 * drawn ahead of the orders that will use them), ascending. Not necessarily consecutive: other
 * processes draw from the same sequence at the same time.
 */
export async function drawDepositIndexes(db: Db, chain: string, count: number): Promise<number[]> {
  const sequence = `deposit_index_${chain.toLowerCase()}`;
  const { rows } = await sql<{ n: number }>`select nextval(${sequence}::regclass) as n from generate_series(1, ${count})`.execute(db);
  if (rows.length !== count) throw new Error(`sequence ${sequence} returned ${rows.length} of ${count} numbers`);
  return rows.map((row) => Number(row.n)).sort((a, b) => a - b);
}

/**
 * The oldest free pool address of the chain, locked for the caller's transaction (FOR UPDATE
 * SKIP LOCKED: concurrent orders each get another one); undefined when the pool is empty.
 */
export async function claimFreePoolAddress(db: Db, chain: string): Promise<{ id: string; address: string } | undefined> {
  return db
    .selectFrom('deposit_addresses')
    .select(['id', 'address'])
    .where('chain', '=', chain)
    .where('strategy', '=', 'pool')
    .where('order_id', 'is', null)
    .orderBy('created_at')
    .limit(1)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
}

/**
 * A partner's share of a chain's pool (docs/contract.md §10.3), for the caller's transaction: the pool's
 * size and how many of its addresses the partner holds, bound to its orders that have seen no
 * deposit (open, or ended and still watched for a late one: releaseEndedPoolAddresses frees
 * them). The partner's row is locked first (FOR NO KEY UPDATE, as create_partner_order locks
 * it), so a partner's concurrent orders count one after the other and the share holds.
 */
export async function poolShareOf(db: Db, chain: string, partnerId: string): Promise<{ size: number; held: number }> {
  await db.selectFrom('partners').select('id').where('id', '=', partnerId).forNoKeyUpdate().execute();
  const row = await db
    .selectFrom('deposit_addresses as d')
    .leftJoin('orders as o', 'o.id', 'd.order_id')
    .select([
      sql<string>`count(*)`.as('size'),
      sql<string>`count(*) filter (where o.partner_id = ${partnerId} and o.deposit_txid is null)`.as('held'),
    ])
    .where('d.chain', '=', chain)
    .where('d.strategy', '=', 'pool')
    .executeTakeFirstOrThrow();
  return { size: Number(row.size), held: Number(row.held) };
}

/** Whether the chain ever had any address (so a demo pool is seeded only once). */
export async function hasDepositAddresses(db: Db, chain: string): Promise<boolean> {
  const row = await db.selectFrom('deposit_addresses').select('id').where('chain', '=', chain).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Loads free addresses into the chain's pool; known ones are skipped. Returns how many were added. */
export async function insertPoolAddresses(db: Db, chain: string, addresses: readonly string[]): Promise<number> {
  if (addresses.length === 0) return 0;
  const inserted = await db
    .insertInto('deposit_addresses')
    .values(addresses.map((address) => ({ chain, address, strategy: 'pool' as const, derivation_index: null, order_id: null, assigned_at: null })))
    .onConflict((conflict) => conflict.doNothing())
    .returning('id')
    .execute();
  return inserted.length;
}

/** How many of the chain's pool addresses are free and how many were handed to an order. */
export async function countPoolAddresses(db: Db, chain: string): Promise<{ available: number; assigned: number }> {
  const row = await db
    .selectFrom('deposit_addresses')
    .select([
      sql<number>`count(*) filter (where order_id is null)`.as('available'),
      sql<number>`count(*) filter (where order_id is not null)`.as('assigned'),
    ])
    .where('chain', '=', chain)
    .where('strategy', '=', 'pool')
    .executeTakeFirstOrThrow();
  return { available: Number(row.available), assigned: Number(row.assigned) };
}

/**
 * Returns to their pools the addresses of orders that ended with no deposit (expired or failed,
 * no deposit txid) and whose late-deposit watch ended before `watchedUntil` (expires_at at or
 * before it). The order keeps its deposit_address as history; the pool row is free again.
 * Returns the chains of the addresses released, one entry per address.
 */
export async function releaseEndedPoolAddresses(db: Db, watchedUntil: Date): Promise<string[]> {
  const released = await db
    .updateTable('deposit_addresses')
    .set({ order_id: null, assigned_at: null })
    .where('strategy', '=', 'pool')
    .where('order_id', 'in', (eb) =>
      eb
        .selectFrom('orders')
        .select('orders.id')
        .where('orders.status', 'in', ['expired', 'failed'])
        .where('orders.deposit_txid', 'is', null)
        .where('orders.expires_at', '<=', watchedUntil),
    )
    .returning('chain')
    .execute();
  return released.map((row) => row.chain);
}

/** The number the chain's sequence hands out next (`deposit_index_<chain>`), without drawing it. */
export async function peekDepositIndex(db: Db, chain: string): Promise<number> {
  const sequence = `deposit_index_${chain.toLowerCase()}`;
  const { rows } = await sql<{ last_value: string; is_called: boolean }>`select last_value, is_called from ${sql.table(sequence)}`.execute(db);
  const row = rows[0];
  if (row === undefined) throw new Error(`sequence ${sequence} returned nothing`);
  return Number(row.last_value) + (row.is_called ? 1 : 0);
}

/**
 * The highest sequence number the chain's addresses were made from: an hd address's derivation
 * index, a memo tag's number (tags are 100000 + the number, deposit-address-allocator.ts).
 * Null when the chain has handed out none. `ordersOnly`: only addresses bound to an order (not
 * the retired ones: retireDepositAddress).
 */
export async function highestDepositIndex(db: Db, chain: string, ordersOnly = false): Promise<number | null> {
  const { rows } = await sql<{ highest: string | null }>`
    select max(case
      when strategy = 'hd' then derivation_index::bigint
      when strategy = 'memo' and tag ~ '^[0-9]{1,18}$' then tag::bigint - 100000
    end) as highest
    from deposit_addresses where chain = ${chain} and (${!ordersOnly} or order_id is not null)`.execute(db);
  const highest = rows[0]?.highest;
  return highest === null || highest === undefined ? null : Number(highest);
}

/**
 * Moves the chain's sequence so it hands out `next` or more next, never back: one statement, the
 * number drawn by nextval inside it is burnt, and a number already drawn by anyone stays behind.
 * Returns the number it hands out next.
 */
export async function advanceDepositIndex(db: Db, chain: string, next: number): Promise<number> {
  const sequence = `deposit_index_${chain.toLowerCase()}`;
  const { rows } = await sql<{ next: string }>`
    select setval(${sequence}::regclass, greatest(${next}::bigint, nextval(${sequence}::regclass) + 1), false) as next`.execute(db);
  const value = rows[0]?.next;
  if (value === undefined) throw new Error(`sequence ${sequence} returned nothing`);
  return Number(value);
}

/**
 * Writes down an hd address seen paid on chain that this database never handed out (a restore
 * lost the order that had it: services/deposit-index-probe.ts), bound to no order: the unique
 * index then refuses it to any order, and highestDepositIndex counts it. True when it was new.
 */
export async function retireDepositAddress(db: Db, chain: string, address: string, index: number): Promise<boolean> {
  const inserted = await db
    .insertInto('deposit_addresses')
    .values({ chain, address, strategy: 'hd', derivation_index: index, order_id: null, assigned_at: null })
    .onConflict((conflict) => conflict.doNothing())
    .returning('id')
    .execute();
  return inserted.length > 0;
}

/** How many pool addresses are free, by chain, for every chain that has a pool. */
export async function countFreePoolAddressesByChain(db: Db): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('deposit_addresses')
    .select(['chain', sql<number>`count(*) filter (where order_id is null)`.as('available')])
    .where('strategy', '=', 'pool')
    .groupBy('chain')
    .execute();
  return new Map(rows.map((row) => [row.chain, Number(row.available)]));
}
