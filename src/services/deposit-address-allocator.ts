import { sql } from 'kysely';
import { Counter } from 'prom-client';
import type { CurrencyRow } from '../db/schema/currencies.js';
import type { Db } from '../db/schema/index.js';
import { deriveDepositAddress } from '../domain/deposit-addresses/index.js';
import { ApiError } from '../errors.js';
import type { Metrics } from '../metrics.js';
import type { DepositWallets } from './deposit-wallets.js';

/** An address picked for an order, not yet bound to it (the order row must exist first). */
export interface ReservedAddress {
  chain: string;
  address: string;
  /** Memo / destination tag, null when the network has none. */
  tag: string | null;
  strategy: 'hd' | 'memo' | 'pool';
  derivationIndex: number | null;
  /** The pool row claimed (pool strategy only). */
  poolRowId: string | null;
}

/**
 * Hands out deposit addresses (DESIGN §5). Indexes and tags come from a per-chain database
 * sequence and pool rows are claimed with SKIP LOCKED, so concurrent requests and several
 * processes never collide; the unique index on (chain, address, tag) is the last word.
 * All calls take the caller's transaction.
 */
export class DepositAddressAllocator {
  private readonly exhausted: Counter<'chain'>;

  constructor(
    private readonly wallets: DepositWallets,
    metrics: Metrics,
  ) {
    this.exhausted = new Counter({
      name: 'deposit_address_pool_exhausted_total',
      help: 'Orders refused because a chain had no free pool address, by chain.',
      labelNames: ['chain'],
      registers: [metrics.registry],
    });
  }

  async reserve(tx: Db, currency: CurrencyRow): Promise<ReservedAddress> {
    const chain = currency.chain;
    switch (currency.deposit_strategy) {
      case 'hd': {
        const wallet = this.wallets.hd.get(chain);
        if (wallet === undefined) throw notConfigured(currency);
        const index = await nextIndex(tx, chain);
        const address = deriveDepositAddress(wallet.format, wallet.account, index);
        return { chain, address, tag: null, strategy: 'hd', derivationIndex: index, poolRowId: null };
      }
      case 'memo': {
        const address = this.wallets.memo.get(chain);
        if (address === undefined) throw notConfigured(currency);
        // Tags start high so they never look like small, guessable numbers.
        const tag = String(100_000 + (await nextIndex(tx, chain)));
        return { chain, address, tag, strategy: 'memo', derivationIndex: null, poolRowId: null };
      }
      case 'pool': {
        const row = await tx
          .selectFrom('deposit_addresses')
          .select(['id', 'address'])
          .where('chain', '=', chain)
          .where('order_id', 'is', null)
          .orderBy('created_at')
          .limit(1)
          .forUpdate()
          .skipLocked()
          .executeTakeFirst();
        if (row === undefined) {
          this.exhausted.inc({ chain });
          throw new ApiError('unprocessable', `no deposit address is available for ${currency.coin} right now: try again later`);
        }
        return { chain, address: row.address, tag: null, strategy: 'pool', derivationIndex: null, poolRowId: row.id };
      }
    }
  }

  /** Records the address as the order's, for good: it is never handed out again. */
  async bind(tx: Db, reserved: ReservedAddress, orderId: string, at: Date): Promise<void> {
    if (reserved.poolRowId !== null) {
      await tx
        .updateTable('deposit_addresses')
        .set({ order_id: orderId, assigned_at: at })
        .where('id', '=', reserved.poolRowId)
        .execute();
      return;
    }
    await tx
      .insertInto('deposit_addresses')
      .values({
        chain: reserved.chain,
        address: reserved.address,
        tag: reserved.tag ?? '',
        strategy: reserved.strategy,
        derivation_index: reserved.derivationIndex,
        order_id: orderId,
        assigned_at: at,
      })
      .execute();
  }
}

async function nextIndex(tx: Db, chain: string): Promise<number> {
  const sequence = `deposit_index_${chain.toLowerCase()}`;
  const { rows } = await sql<{ n: number }>`select nextval(${sequence}::regclass) as n`.execute(tx);
  const n = rows[0]?.n;
  if (n === undefined) throw new Error(`sequence ${sequence} returned nothing`);
  return Number(n);
}

function notConfigured(currency: CurrencyRow): ApiError {
  return new ApiError('unprocessable', `deposits of ${currency.coin} on ${currency.network} are not configured`);
}
