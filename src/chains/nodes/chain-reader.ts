import type { Decimal } from '../../domain/money.js';

/** One watched order, as a node reader needs it. */
export interface ScanTarget {
  orderId: string;
  /** The deposit address as this node spells it (see node-network-address.ts; lower case on EVM). */
  address: string;
  /** Token contract, lower case, for an ERC-20 / BEP-20 deposit; null for the chain's own coin. */
  contract: string | null;
}

/** A transaction paying a watched order, and the block it sits in. */
export interface FoundDeposit {
  orderId: string;
  txid: string;
  /** In coin units; the sum of every output (or transfer) of the transaction to the address. */
  amount: Decimal;
  blockHeight: number;
  blockHash: string;
}

export interface ScanResult {
  /** The last block scanned, consistent with the ones before it. */
  height: number;
  hash: string;
  deposits: FoundDeposit[];
}

/**
 * Read-only access to one node: the part of a watcher that differs between chain families.
 * Everything stateful (cursor, deposits, reorgs, backoff) lives in NodeChainWatcher.
 */
export interface ChainReader {
  /** Where the node is, without credentials: for logs and errors. */
  readonly label: string;
  /** The network the node runs: `main`, `regtest` (Bitcoin family), `chain 1` (EVM). */
  network(): Promise<string>;
  /** True for the production network of the chain this reader serves. */
  isMainnet(network: string): boolean;
  /** The deposit address (as the API hands it out) spelled as this node reports it. */
  nodeAddress(network: string, address: string): string;
  tipHeight(): Promise<number>;
  /** Hash of the best chain's block at `height`; null above the tip. */
  blockHash(height: number): Promise<string | null>;
  /**
   * Blocks after `from` (height and hash) up to `toHeight`, following parent links. It stops
   * early at a block whose parent is not the block before (a reorg under way): the result
   * says how far it got, and the next pass sorts the reorg out.
   */
  scan(from: { height: number; hash: string }, toHeight: number, targets: readonly ScanTarget[]): Promise<ScanResult>;
}
