import { Counter } from 'prom-client';
import {
  assignPoolAddress,
  claimFreePoolAddress,
  insertDepositAddress,
  nextDepositIndex,
} from '../db/repositories/deposit-addresses-repository.js';
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
        const index = await nextDepositIndex(tx, chain);
        const address = deriveDepositAddress(wallet.format, wallet.account, index);
        return { chain, address, tag: null, strategy: 'hd', derivationIndex: index, poolRowId: null };
      }
      case 'memo': {
        const address = this.wallets.memo.get(chain);
        if (address === undefined) throw notConfigured(currency);
        // Tags start high so they never look like small, guessable numbers.
        const tag = String(100_000 + (await nextDepositIndex(tx, chain)));
        return { chain, address, tag, strategy: 'memo', derivationIndex: null, poolRowId: null };
      }
      case 'pool': {
        const row = await claimFreePoolAddress(tx, chain);
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
      await assignPoolAddress(tx, reserved.poolRowId, orderId, at);
      return;
    }
    await insertDepositAddress(tx, {
      chain: reserved.chain,
      address: reserved.address,
      tag: reserved.tag ?? '',
      strategy: reserved.strategy,
      derivation_index: reserved.derivationIndex,
      order_id: orderId,
      assigned_at: at,
    });
  }
}

function notConfigured(currency: CurrencyRow): ApiError {
  return new ApiError('unprocessable', `deposits of ${currency.coin} on ${currency.network} are not configured`);
}
