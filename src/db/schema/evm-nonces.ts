import type { ColumnType } from 'kysely';

/** The next nonce of a hot-wallet address on an EVM chain (migration 0052, docs/contract.md §11.7). */
export interface EvmNonceTable {
  /** Chain code: ETH, BSC. */
  chain: string;
  /** The hot wallet's address, lower case. */
  address: string;
  /** The nonce the next new transaction takes; BIGINT, read as a decimal string. */
  next_nonce: ColumnType<string, string, string>;
}
