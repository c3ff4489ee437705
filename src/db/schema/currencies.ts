import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { AddressFormat } from '../../domain/address-format.js';

/** NUMERIC columns come back as exact decimal strings from both engines (see db/type-parsers.ts). */
export type Numeric = ColumnType<string, string, string>;
export type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** A timestamp the database fills by default on insert. */
export type GeneratedTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;

/** How deposit addresses are handed out on a network (docs/contract.md §5). */
export type DepositStrategy = 'hd' | 'memo' | 'pool';

/** One coin on one network. Amounts are in the coin's own units (BTC, not satoshi). */
export interface CurrencyTable {
  id: Generated<string>;
  /** Ticker, upper case: BTC, USDT. */
  coin: string;
  /** Network identifier, upper case: BTC, ERC20, TRC20, BEP20. */
  network: string;
  name: string;
  is_active: boolean;
  is_deposit_enabled: boolean;
  is_withdraw_enabled: boolean;
  /** Per-order limits in coin units, with at most `decimals` fractional digits (CHECK). */
  min_amount: Numeric;
  max_amount: Numeric;
  min_confirmations: number;
  /** Fractional digits used for display and rounding (0..18). */
  decimals: number;
  is_memo: boolean;
  /** Templates with a `{txid}` / `{address}` placeholder. */
  explorer_tx_url: string | null;
  explorer_address_url: string | null;
  icon_url: string | null;
  /** Network fee of one payout, in coin units, charged to the user when this is the destination. */
  payout_fee: Numeric;
  address_format: AddressFormat;
  deposit_strategy: DepositStrategy;
  /** Symbol the price feeds know this coin by (USDT on every network prices as USDT). */
  price_symbol: string;
  /** Token contract (ERC-20, TRC-20, BEP-20, SPL) or null for a native coin. */
  token_contract: string | null;
  /** Address space: networks on one chain (ETH and ERC20) share it. Upper case: BTC, ETH, BSC, TRON. */
  chain: string;
  /** Order of the catalog listing. */
  sort_order: number;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

export type CurrencyRow = Selectable<CurrencyTable>;
export type NewCurrency = Insertable<CurrencyTable>;
export type CurrencyUpdate = Updateable<CurrencyTable>;
