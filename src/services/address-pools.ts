import { listPoolAlerts, setPoolAlert } from '../db/repositories/address-pool-alerts-repository.js';
import { countPoolAddresses, insertPoolAddresses } from '../db/repositories/deposit-addresses-repository.js';
import type { Db } from '../db/schema/index.js';
import type { CurrencyRow } from '../db/schema/currencies.js';
import { validateAddress } from '../domain/addresses/index.js';
import { ApiError } from '../errors.js';
import type { Clock } from '../clock.js';
import type { CurrencyCatalog } from './currency-catalog.js';

/**
 * A pool is low while it has fewer free addresses than this, unless an operator set its own
 * threshold (docs/adr/0059-console-pools-and-stuck-orders.md): the level the alert rule used
 * before thresholds could be set.
 */
export const DEFAULT_POOL_LOW_AT = 100;
/** The largest threshold accepted (the column's check). */
export const MAX_POOL_LOW_AT = 1_000_000_000;

/** A pool's levels: addresses not yet handed to an order, and those handed out. */
export interface PoolLevels {
  chain: string;
  available: number;
  assigned: number;
}

export interface PoolState {
  chain: string;
  available: number;
  assigned: number;
  /** The threshold in force: the operator's, else DEFAULT_POOL_LOW_AT. */
  low_at: number;
  /** Whether `low_at` is the default (no operator set one). */
  low_at_default: boolean;
  /** Fewer free addresses than `low_at`. */
  low: boolean;
}

/**
 * Deposit address pools (chains whose addresses are loaded, not derived): their levels, the
 * low-pool alert threshold of each (the console's pools page, PUT
 * /admin/v1/address-pools/{chain}/alert, the CLI's `pools alert`), and loading addresses into one.
 */
export class AddressPools {
  constructor(
    private readonly db: Db,
    private readonly catalog: Pick<CurrencyCatalog, 'all' | 'reload'>,
    private readonly clock: Clock,
  ) {}

  /** The catalog row that makes `rawChain` a pool chain (any case); 404 when it is not one. */
  currency(rawChain: string): CurrencyRow {
    const chain = rawChain.toUpperCase();
    const row = this.catalog.all().find((currency) => currency.chain === chain && currency.deposit_strategy === 'pool');
    if (row === undefined) throw new ApiError('not_found', `${chain} is not a chain with an address pool`);
    return row;
  }

  /** Every pool chain of the catalog, by name, with its level and threshold. */
  async states(): Promise<PoolState[]> {
    const chains = [...new Set(this.catalog.all().filter((row) => row.deposit_strategy === 'pool').map((row) => row.chain))].sort();
    const alerts = await listPoolAlerts(this.db);
    return Promise.all(chains.map(async (chain) => stateOf(chain, await countPoolAddresses(this.db, chain), alerts.get(chain))));
  }

  /** A pool's levels: addresses not yet handed to an order, and those handed out. */
  async levels(chain: string): Promise<PoolLevels> {
    return { chain, ...(await countPoolAddresses(this.db, chain)) };
  }

  async state(rawChain: string): Promise<PoolState> {
    const { chain } = this.currency(rawChain);
    const alerts = await listPoolAlerts(this.db);
    return stateOf(chain, await countPoolAddresses(this.db, chain), alerts.get(chain));
  }

  /** The threshold in force of each chain that has a pool or an operator's threshold (the gauge's). */
  async thresholds(chains: Iterable<string>): Promise<Map<string, number>> {
    const alerts = await listPoolAlerts(this.db);
    return new Map([...new Set([...chains, ...alerts.keys()])].map((chain) => [chain, alerts.get(chain) ?? DEFAULT_POOL_LOW_AT]));
  }

  /** Sets the chain's low-pool threshold; null returns it to the default. 400 outside 0..MAX_POOL_LOW_AT. */
  async setThreshold(rawChain: string, lowAt: number | null): Promise<PoolState> {
    const { chain } = this.currency(rawChain);
    if (lowAt !== null && (!Number.isSafeInteger(lowAt) || lowAt < 0 || lowAt > MAX_POOL_LOW_AT)) {
      throw new ApiError('bad_request', `The threshold is a whole number from 0 to ${MAX_POOL_LOW_AT}.`);
    }
    await setPoolAlert(this.db, chain, lowAt, this.clock.now());
    return this.state(chain);
  }

  /**
   * Loads addresses into a chain's pool, each checked against the chain's format first (one bad
   * address refuses the whole load, 400, naming it). Each is handed to one order, ever; a known
   * one is skipped. A chain's first pool makes its deposits configured here at once (other
   * processes: at their next catalog refresh).
   */
  async load(rawChain: string, addresses: readonly string[]): Promise<PoolLevels & { added: number; skipped: number }> {
    const currency = this.currency(rawChain);
    const unique = [...new Set(addresses)];
    for (const address of unique) {
      const check = validateAddress(currency.address_format, address);
      if (!check.ok) throw new ApiError('bad_request', `"${address.slice(0, 128)}" is not a valid ${currency.chain} address: ${check.reason}`);
    }
    const added = await insertPoolAddresses(this.db, currency.chain, unique);
    if (added > 0) await this.catalog.reload();
    return { ...(await this.levels(currency.chain)), added, skipped: addresses.length - added };
  }
}

function stateOf(chain: string, counts: { available: number; assigned: number }, set: number | undefined): PoolState {
  const lowAt = set ?? DEFAULT_POOL_LOW_AT;
  return { chain, ...counts, low_at: lowAt, low_at_default: set === undefined, low: counts.available < lowAt };
}
