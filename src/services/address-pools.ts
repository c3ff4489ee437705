import { countPoolAddresses, insertPoolAddresses } from '../db/repositories/deposit-addresses-repository.js';
import type { CurrencyRow } from '../db/schema/currencies.js';
import type { Db } from '../db/schema/index.js';
import { validateAddress } from '../domain/addresses/index.js';
import { ApiError } from '../errors.js';
import type { CurrencyCatalog } from './currency-catalog.js';

/** A pool's levels: addresses not yet handed to an order, and those handed out. */
export interface PoolLevels {
  chain: string;
  available: number;
  assigned: number;
}

/**
 * The deposit-address pools of the chains whose deposits come from addresses the operator loads
 * (deposit_strategy `pool`): their levels, and loading more. The operator API and the console
 * both ask here.
 */
export class AddressPools {
  constructor(
    private readonly db: Db,
    private readonly catalog: Pick<CurrencyCatalog, 'all' | 'reload'>,
  ) {}

  /** The catalog row of a chain with an address pool (any case); 404 for any other chain. */
  currency(rawChain: string): CurrencyRow {
    const chain = rawChain.toUpperCase();
    const row = this.catalog.all().find((currency) => currency.chain === chain && currency.deposit_strategy === 'pool');
    if (row === undefined) throw new ApiError('not_found', `${chain} is not a chain with an address pool`);
    return row;
  }

  async levels(chain: string): Promise<PoolLevels> {
    return { chain, ...(await countPoolAddresses(this.db, chain)) };
  }

  /**
   * Loads addresses into a chain's pool, each checked against the chain's format first (one bad
   * address refuses the whole load, 400). Each is handed to one order, ever; a known one is skipped.
   */
  async load(rawChain: string, addresses: readonly string[]): Promise<PoolLevels & { added: number; skipped: number }> {
    const currency = this.currency(rawChain);
    const unique = [...new Set(addresses)];
    for (const address of unique) {
      const check = validateAddress(currency.address_format, address);
      if (!check.ok) throw new ApiError('bad_request', `"${address}" is not a valid ${currency.chain} address: ${check.reason}`);
    }
    const added = await insertPoolAddresses(this.db, currency.chain, unique);
    // A chain's first pool makes its deposits configured here at once (other processes: at their next refresh).
    if (added > 0) await this.catalog.reload();
    return { ...(await this.levels(currency.chain)), added, skipped: addresses.length - added };
  }
}
