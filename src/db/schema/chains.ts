import type { Selectable } from 'kysely';

/**
 * The facts of one chain (migration 0045, DESIGN §10.6 and §10.7): how a wallet names it and its
 * native coin, and how long its deposits and payouts take. `currencies.chain` references `code`.
 */
export interface ChainTable {
  /** The catalog's chain code, upper case: BTC, ETH, BSC, TRON (currencies.chain). */
  code: string;
  /** The chain as the API shows it, lower case: bitcoin, ethereum, bsc, tron. */
  name: string;
  /** CAIP-2 chain id: eip155:1, bip122:000000000019d6689c085ae165831e93. */
  caip2: string;
  /** SLIP-44 coin type of the chain's native coin. */
  slip44: number;
  /** CAIP-19 asset namespace of the chain's tokens (erc20, trc20, token); null where none is listed. */
  token_namespace: string | null;
  /** Average block (slot, ledger) interval, milliseconds. */
  block_time_ms: number;
  /** Seconds from the exchange to the payout seen on this chain (signing, broadcast, first block). */
  payout_seconds: number;
  /** What wallets call the routing tag (Destination tag, Memo); null where the chain has none. */
  memo_name: string | null;
}

export type ChainRow = Selectable<ChainTable>;
