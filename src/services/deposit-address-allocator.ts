import { Counter } from 'prom-client';
import { claimFreePoolAddress, drawDepositIndexes, poolShareOf } from '../db/repositories/deposit-addresses-repository.js';
import type { CurrencyRow } from '../db/schema/currencies.js';
import type { Db } from '../db/schema/index.js';
import { deriveDepositAddress, sandboxDepositAddress } from '../domain/deposit-addresses/index.js';
import { ApiError } from '../errors.js';
import type { Metrics } from '../metrics.js';
import { DepositAddressStock, type StockedAddress } from './deposit-address-stock.js';
import type { DepositWallets } from './deposit-wallets.js';

/** An address picked for an order, not yet bound to it (the order's statement binds it). */
export interface ReservedAddress {
  chain: string;
  address: string;
  /** Memo / destination tag, null when the network has none. */
  tag: string | null;
  strategy: 'hd' | 'memo' | 'pool' | 'sandbox';
  derivationIndex: number | null;
  /** The pool row claimed (pool strategy only). */
  poolRowId: string | null;
  /** hd and memo: the stock it came from, to give it back to if the order is refused. */
  stock: DepositAddressStock | null;
  /** The stock's entry (hd and memo). */
  stocked: StockedAddress | null;
}

/**
 * Hands out deposit addresses (docs/contract.md §5). hd and memo chains: from a per-chain stock made
 * ahead of the requests (deposit-address-stock.ts) from numbers of the chain's database sequence
 * drawn in blocks, so concurrent requests and several processes never collide and an order
 * neither waits for a round trip nor derives. Pool rows are claimed with SKIP LOCKED in the
 * order's transaction. The unique index on (chain, address, tag) is the last word.
 */
export class DepositAddressAllocator {
  private readonly exhausted: Counter<'chain'>;
  private readonly shareRefused: Counter<'chain'>;
  private readonly stocks = new Map<string, DepositAddressStock>();

  constructor(
    private readonly db: Db,
    private readonly wallets: DepositWallets,
    metrics: Metrics,
    private readonly onError: (error: unknown) => void,
    /** config.limits.poolSharePct: the percent of a chain's pool one partner may hold at once (docs/contract.md §10.3). */
    private readonly poolSharePct = 20,
  ) {
    this.exhausted = new Counter({
      name: 'deposit_address_pool_exhausted_total',
      help: 'Orders refused because a chain had no free pool address, by chain.',
      labelNames: ['chain'],
      registers: [metrics.registry],
    });
    this.shareRefused = new Counter({
      name: 'deposit_address_pool_share_refused_total',
      help: "Orders refused because their partner already held its share of the chain's address pool (POOL_SHARE_PCT), by chain.",
      labelNames: ['chain'],
      registers: [metrics.registry],
    });
  }

  /** Whether the currency's deposits come from a pool (claimed in the order's transaction by claimPool). */
  usesPool(currency: CurrencyRow): boolean {
    return currency.deposit_strategy === 'pool';
  }

  /** An hd or memo address from the chain's stock (no transaction: nothing is locked). */
  async reserve(currency: CurrencyRow): Promise<ReservedAddress> {
    const chain = currency.chain;
    const strategy = currency.deposit_strategy;
    if (strategy === 'pool') throw new Error(`${chain} deposits come from a pool: claimPool in the order's transaction`);
    const stock = this.stockOf(currency);
    const stocked = await stock.take();
    return {
      chain,
      address: stocked.address,
      tag: stocked.tag,
      strategy,
      derivationIndex: strategy === 'hd' ? stocked.index : null,
      poolRowId: null,
      stock,
      stocked,
    };
  }

  /**
   * A sandbox order's address (docs/contract.md §7.6): keyless, made here (sandboxDepositAddress), so a
   * test order never takes an index of the operator's wallet, its memo address or a pool row.
   * A chain whose live deposits are not configured refuses sandbox orders too (the same 422): a
   * partner's test answers as its live order would.
   */
  sandbox(currency: CurrencyRow): ReservedAddress {
    const strategy = currency.deposit_strategy;
    if ((strategy === 'hd' && !this.wallets.hd.has(currency.chain)) || (strategy === 'memo' && !this.wallets.memo.has(currency.chain))) {
      throw notConfigured(currency);
    }
    const { address, tag } = sandboxDepositAddress(currency.address_format, strategy === 'memo');
    return { chain: currency.chain, address, tag, strategy: 'sandbox', derivationIndex: null, poolRowId: null, stock: null, stocked: null };
  }

  /**
   * The oldest free pool address of the chain, locked for `tx`, for an order of `partnerId`.
   * 422 when the pool is empty, or when the partner already holds its share of the pool
   * (POOL_SHARE_PCT, at least one address; docs/contract.md §10.3): counting the addresses of its open
   * orders and of its ended, unpaid ones still watched, so cancelling an order frees the
   * open-order cap at once but not the address, and one partner can never take the addresses
   * the others need.
   */
  async claimPool(tx: Db, currency: CurrencyRow, partnerId: string): Promise<ReservedAddress> {
    const chain = currency.chain;
    const { size, held } = await poolShareOf(tx, chain, partnerId);
    const share = Math.max(1, Math.floor((size * this.poolSharePct) / 100));
    if (held >= share) {
      this.shareRefused.inc({ chain });
      throw new ApiError(
        'unprocessable',
        `this account holds ${held} of the ${size} ${currency.coin} deposit addresses, the most one partner may hold at once (${this.poolSharePct} %): ` +
          'an address returns 24 hours after its order ended unpaid; pay or let open orders expire first',
      );
    }
    const row = await claimFreePoolAddress(tx, chain);
    if (row === undefined) {
      this.exhausted.inc({ chain });
      throw new ApiError('unprocessable', `no deposit address is available for ${currency.coin} right now: try again later`);
    }
    return { chain, address: row.address, tag: null, strategy: 'pool', derivationIndex: null, poolRowId: row.id, stock: null, stocked: null };
  }

  /**
   * An address whose order the database certainly refused (nothing written): an hd or memo
   * address is handed out again, so a refused order leaves no gap in the wallet.
   */
  giveBack(reserved: ReservedAddress): void {
    if (reserved.stock !== null && reserved.stocked !== null) reserved.stock.giveBack(reserved.stocked);
  }

  /** Waits for draws and derivations in progress. */
  async close(): Promise<void> {
    await Promise.all([...this.stocks.values()].map((stock) => stock.close()));
  }

  private stockOf(currency: CurrencyRow): DepositAddressStock {
    const chain = currency.chain;
    const known = this.stocks.get(chain);
    if (known !== undefined) return known;
    const draw = (count: number) => drawDepositIndexes(this.db, chain, count);
    let make: (index: number) => { address: string; tag: string | null };
    if (currency.deposit_strategy === 'hd') {
      const wallet = this.wallets.hd.get(chain);
      if (wallet === undefined) throw notConfigured(currency);
      make = (index) => ({ address: deriveDepositAddress(wallet.format, wallet.account, index), tag: null });
    } else {
      const address = this.wallets.memo.get(chain);
      if (address === undefined) throw notConfigured(currency);
      // Tags start high so they never look like small, guessable numbers.
      make = (index) => ({ address, tag: String(100_000 + index) });
    }
    const stock = new DepositAddressStock(draw, make, this.onError);
    this.stocks.set(chain, stock);
    return stock;
  }
}

function notConfigured(currency: CurrencyRow): ApiError {
  return new ApiError('unprocessable', `deposits of ${currency.coin} on ${currency.network} are not configured`);
}
