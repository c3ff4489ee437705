import type { Selectable } from 'kysely';
import type { Numeric, Timestamp } from './currencies.js';

/** Per chain with a node watcher: how far it has scanned and how the node last answered. */
export interface ChainCursorTable {
  /** currencies.chain: BTC, LTC, ETH, ... */
  chain: string;
  /** What the node says it runs: `main`, `regtest` (Bitcoin family), `chain 1` (EVM chain id). */
  network: string | null;
  /** Last block scanned, with its hash (null until the first successful pass). */
  height: number | null;
  block_hash: string | null;
  last_ok_at: Timestamp | null;
  /** The last failure, kept after recovery so an operator can see what happened. */
  last_error: string | null;
  last_error_at: Timestamp | null;
  updated_at: Timestamp;
}

export type ChainCursorRow = Selectable<ChainCursorTable>;

/** One deposit transaction seen paying an order's address. */
export interface ChainDepositTable {
  order_id: string;
  txid: string;
  chain: string;
  /** In the order's coin_from units, the sum of every output or transfer of the tx to the address. */
  amount: Numeric;
  /** The block holding the tx; null once a reorg has taken that block out of the best chain. */
  block_height: number | null;
  block_hash: string | null;
  first_seen_at: Timestamp;
  updated_at: Timestamp;
}

export type ChainDepositRow = Selectable<ChainDepositTable>;
