import type { Db } from '../db/schema/index.js';
import { findCurrency, insertCurrency, updateCurrency } from '../db/repositories/currencies-repository.js';
import { isUniqueViolation } from '../db/errors.js';
import type { CurrencyRow, CurrencyUpdate, NewCurrency } from '../db/schema/currencies.js';
import type { AddressFormat } from '../domain/address-format.js';
import { validateAddress } from '../domain/addresses/index.js';
import type { ChainFacts } from '../domain/chain-facts.js';
import { Decimal, isStorableDecimal, parseDecimalInput } from '../domain/money.js';
import { ApiError } from '../errors.js';
import type { CatalogChanges } from './catalog-changes.js';
import type { CurrencyCatalog } from './currency-catalog.js';

/** A coin, token or network to add (POST /admin/v1/currencies, the console's catalog form). */
export interface CurrencyToAdd {
  coin: string;
  network: string;
  chain: string;
  name: string;
  decimals: number;
  token_contract?: string | null | undefined;
  price_symbol?: string | undefined;
  min_amount: string | number;
  max_amount: string | number;
  payout_fee?: string | number | undefined;
  min_confirmations?: number | undefined;
  address_format?: AddressFormat | undefined;
  deposit_strategy?: 'hd' | 'memo' | 'pool' | undefined;
  is_memo?: boolean | undefined;
  explorer_tx_url?: string | null | undefined;
  explorer_address_url?: string | null | undefined;
  icon_url?: string | null | undefined;
  is_active?: boolean | undefined;
  is_deposit_enabled?: boolean | undefined;
  is_withdraw_enabled?: boolean | undefined;
  sort_order?: number | undefined;
}

/** What an edit may change (PATCH /admin/v1/currencies/{id}, the console's edit form): never decimals. */
export interface CurrencyChanges {
  is_active?: boolean | undefined;
  is_deposit_enabled?: boolean | undefined;
  is_withdraw_enabled?: boolean | undefined;
  min_amount?: string | number | undefined;
  max_amount?: string | number | undefined;
  payout_fee?: string | number | undefined;
  min_confirmations?: number | undefined;
  name?: string | undefined;
  token_contract?: string | undefined;
  price_symbol?: string | undefined;
  explorer_tx_url?: string | null | undefined;
  explorer_address_url?: string | null | undefined;
  icon_url?: string | null | undefined;
  sort_order?: number | undefined;
}

/**
 * A token contract a catalog row may name: an address of the chain's format (422
 * address_invalid), and no other row's on the chain (409: two rows would make the watcher credit
 * one transfer to two currencies). `exceptId`: the row edited.
 */
function checkTokenContract(rows: readonly CurrencyRow[], target: { chain: string; format: AddressFormat; exceptId?: string }, contract: string): void {
  const check = validateAddress(target.format, contract);
  if (!check.ok) throw ApiError.field('unprocessable', { code: 'address_invalid', field: 'token_contract' }, `token_contract is not a ${target.format} address: ${check.reason}`);
  const taken = rows.find((row) => row.id !== target.exceptId && row.chain === target.chain && row.token_contract?.toLowerCase() === contract.toLowerCase());
  if (taken !== undefined) throw new ApiError('conflict', `the contract is already in the catalog as ${taken.coin} (${taken.network})`);
}

/**
 * The catalog's edits at run time (docs/contract.md §12): one implementation for the operator
 * API, the console and the CLI. Each edit reloads every process's catalog (CatalogChanges); a
 * token on a watched EVM chain is watched from its first order (the watcher reads each order's
 * contract).
 */
export class CatalogEdits {
  constructor(
    private readonly db: Db,
    private readonly catalog: CurrencyCatalog,
    private readonly changes: CatalogChanges,
  ) {}

  /** The catalog's row as stored (the catalog itself keeps only what quotes and orders use). */
  find(id: string): Promise<CurrencyRow | undefined> {
    return findCurrency(this.db, id);
  }

  /**
   * Adds a row on a chain the catalog has (its address space, node and keys: a new chain is a
   * release). What the input leaves out comes from the chain's other rows (address format,
   * deposit strategy, confirmations, memo, explorer links), so a token needs little more than its
   * contract, decimals and limits.
   */
  async add(input: CurrencyToAdd): Promise<{ row: CurrencyRow; chain: ChainFacts }> {
    const { catalog } = this;
    const chain = catalog.chains().get(input.chain);
    if (chain === undefined) throw ApiError.field('unprocessable', { code: 'unprocessable', field: 'chain' }, `no chain ${input.chain} in the catalog: a new chain needs a release`);
    // The chain's own coin (else its first row) gives what the input leaves out.
    const sibling = catalog.all().find((row) => row.chain === input.chain && row.token_contract === null) ?? catalog.all().find((row) => row.chain === input.chain);
    const addressFormat = input.address_format ?? sibling?.address_format;
    const depositStrategy = input.deposit_strategy ?? sibling?.deposit_strategy;
    if (addressFormat === undefined || depositStrategy === undefined) {
      throw ApiError.field('unprocessable', { code: 'unprocessable', field: 'address_format' }, `the chain ${input.chain} has no currency yet: give address_format and deposit_strategy`);
    }
    const token = input.token_contract ?? null;
    if (token !== null) checkTokenContract(catalog.all(), { chain: input.chain, format: addressFormat }, token);
    const amount = (field: string, raw: string | number): Decimal => {
      const value = parseDecimalInput(raw);
      if (value === undefined || !isStorableDecimal(value)) throw ApiError.field('bad_request', { code: 'amount_invalid', field }, `${field} is not a decimal amount below 1e20`);
      if (value.decimalPlaces() > input.decimals) throw ApiError.field('bad_request', { code: 'amount_invalid', field }, `${field} has more than ${input.decimals} decimals`);
      return value;
    };
    const min = amount('min_amount', input.min_amount);
    const max = amount('max_amount', input.max_amount);
    const fee = input.payout_fee === undefined ? new Decimal(0) : amount('payout_fee', input.payout_fee);
    if (min.lte(0)) throw ApiError.field('unprocessable', { code: 'unprocessable', field: 'min_amount' }, 'min_amount must be greater than 0');
    if (min.gt(max)) throw ApiError.field('unprocessable', { code: 'unprocessable', field: 'max_amount' }, 'min_amount must not exceed max_amount');
    const row: NewCurrency = {
      coin: input.coin,
      network: input.network,
      chain: input.chain,
      name: input.name,
      decimals: input.decimals,
      token_contract: token,
      price_symbol: input.price_symbol ?? input.coin,
      min_amount: min.toFixed(),
      max_amount: max.toFixed(),
      payout_fee: fee.toFixed(),
      min_confirmations: input.min_confirmations ?? sibling?.min_confirmations ?? 1,
      address_format: addressFormat,
      deposit_strategy: depositStrategy,
      is_memo: input.is_memo ?? sibling?.is_memo ?? false,
      explorer_tx_url: input.explorer_tx_url === undefined ? (sibling?.explorer_tx_url ?? null) : input.explorer_tx_url,
      explorer_address_url: input.explorer_address_url === undefined ? (sibling?.explorer_address_url ?? null) : input.explorer_address_url,
      icon_url: input.icon_url ?? null,
      is_active: input.is_active ?? true,
      is_deposit_enabled: input.is_deposit_enabled ?? true,
      is_withdraw_enabled: input.is_withdraw_enabled ?? true,
      sort_order: input.sort_order ?? Math.max(0, ...catalog.all().map((other) => other.sort_order)) + 1,
    };
    let created;
    try {
      created = await insertCurrency(this.db, row);
    } catch (error) {
      if (isUniqueViolation(error, 'currencies_coin_network_key')) throw new ApiError('conflict', `${input.coin} on ${input.network} is already in the catalog`);
      throw error;
    }
    await this.changes.publish();
    return { row: created, chain };
  }

  /** Changes flags, limits, confirmations, payout fee, name, contract, price symbol, links or order (not decimals). */
  async change(id: string, input: CurrencyChanges): Promise<{ row: CurrencyRow; chain: ChainFacts }> {
    const current = await findCurrency(this.db, id);
    if (current === undefined) throw new ApiError('not_found', 'currency not found');
    const { min_amount, max_amount, payout_fee, token_contract, ...rest } = input;
    const changes: CurrencyUpdate = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
    if (token_contract !== undefined) {
      // A native coin stays one: its "contract" would make the watcher look for token transfers.
      if (current.token_contract === null) throw ApiError.field('unprocessable', { code: 'unprocessable', field: 'token_contract' }, `${current.coin} on ${current.network} is the chain's own coin: it has no contract`);
      checkTokenContract(this.catalog.all(), { chain: current.chain, format: current.address_format, exceptId: current.id }, token_contract);
      changes.token_contract = token_contract;
    }
    const amount = (field: string, raw: string | number | undefined): Decimal | undefined => {
      if (raw === undefined) return undefined;
      const value = parseDecimalInput(raw);
      if (value === undefined) throw new ApiError('bad_request', `${field} is not a decimal amount`);
      if (value.decimalPlaces() > current.decimals) throw new ApiError('bad_request', `${field} has more than ${current.decimals} decimals`);
      if (!isStorableDecimal(value)) throw new ApiError('bad_request', `${field} must be below 1e20`);
      return value;
    };
    const min = amount('min_amount', min_amount) ?? new Decimal(current.min_amount);
    const max = amount('max_amount', max_amount) ?? new Decimal(current.max_amount);
    const fee = amount('payout_fee', payout_fee);
    if (min.lte(0)) throw new ApiError('unprocessable', 'min_amount must be greater than 0');
    if (min.gt(max)) throw new ApiError('unprocessable', 'min_amount must not exceed max_amount');
    changes.min_amount = min.toFixed();
    changes.max_amount = max.toFixed();
    if (fee !== undefined) changes.payout_fee = fee.toFixed();
    const row = await updateCurrency(this.db, current.id, changes);
    if (row === undefined) throw new ApiError('not_found', 'currency not found');
    await this.changes.publish();
    return { row, chain: this.catalog.chainOf(row) };
  }
}
