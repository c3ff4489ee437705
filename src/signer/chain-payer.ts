import type { ClaimedPayout } from '../db/repositories/signer-repository.js';
import type { Db } from '../db/schema/index.js';
import type { PayoutTransactionRow } from '../db/schema/payouts.js';
import type { Decimal } from '../domain/money.js';
import type { FeeBound } from './fee-guard.js';

/**
 * What the chain's node knows of one of our transactions. `fee` of a mined one: the real network
 * fee, decimal, in the chain's own coin, where the chain reports it (EVM: gasUsed ×
 * effectiveGasPrice). `reverted`: mined, but the call failed (EVM): its nonce and fee are
 * spent and nothing was paid.
 */
export type TransactionState =
  | { kind: 'confirmed'; confirmations: number; fee?: string }
  | { kind: 'reverted'; confirmations: number; fee?: string }
  | { kind: 'mempool' }
  | { kind: 'dropped' }
  | { kind: 'conflicted' };

/** The fee a payer last worked out, in its `feeUnit`: the node's estimate, the one used, what bounded it. */
export interface FeeReading {
  estimate: Decimal | undefined;
  used: Decimal;
  bounds: readonly FeeBound[];
}

/** A currency of a payer's chain, as the signer reads the catalog. */
export interface ChainCurrency {
  id: string;
  decimals: number;
  /** Null for the chain's native coin. */
  token_contract: string | null;
}

/** A transaction signed for a batch, as it is stored before it is broadcast. */
export interface SignedTransaction {
  chain: string;
  txid: string;
  raw: string;
  /** The whole network fee, decimal, in the chain's own coin. */
  fee: string;
  vsize: number | null;
  inputs: string[];
  nonce: string | null;
  replaces_id: string | null;
  /** EVM: the chain's height when it was signed, where its replacement clock starts (null: Bitcoin family). */
  seen_unmined_at_block: string | null;
}

export type SignOutcome =
  | {
      kind: 'signed';
      transaction: SignedTransaction;
      /**
       * The payouts it pays: all of those given when the wallet covers them, else, oldest first,
       * each that still fits beside those taken (a large payout waiting for liquidity does not
       * hold up the small ones behind it).
       */
      paid: readonly ClaimedPayout[];
      /** Each paid payout's share of the fee, in the order of `paid`. */
      fees: string[];
      /**
       * Takes what the transaction used (the change index, the nonce) for good: called by the
       * loop, in the same database transaction, only for the outcome it stores.
       */
      take(tx: Db): Promise<void>;
    }
  /** The hot wallet cannot cover any of these payouts with its fee now. */
  | { kind: 'insufficient' };

/**
 * One chain's way of paying (a Bitcoin-family node wallet, an EVM account): the payout loop
 * (payout-loop.ts) claims, judges and stores; a ChainPayer builds, signs, broadcasts and
 * follows. `sign` runs inside the loop's database transaction with the chain locked, so what
 * it reads and takes there (change index, nonce) is consistent across signers.
 */
export interface ChainPayer {
  readonly chain: string;
  /** Opens what the payer needs (the node's watch-only wallet); once, at start. */
  start(db: Db): Promise<void>;
  /** The unit of its fee readings: `sat/vB` (Bitcoin family), `gwei` (EVM: the fee cap per gas). */
  readonly feeUnit: string;
  /** The fee it last worked out (published for the API's gauges), undefined before its first. */
  readonly lastFee: FeeReading | undefined;
  /** Most payouts one transaction may carry (1 where the chain has no batching). */
  readonly batchMax: number;
  /** Signs one transaction for as many of `payouts` as the hot wallet covers (see `paid`). */
  sign(tx: Db, payouts: readonly ClaimedPayout[]): Promise<SignOutcome>;
  /**
   * What the hot wallet could pay now, before fees, per currency of the chain given (docs/contract.md
   * §11.7; stored in hot_wallet_balances): coins or balance that no stored transaction of the
   * chain takes. Missing from the map: a currency the payer cannot pay (published as zero).
   */
  spendable(db: Db, currencies: readonly ChainCurrency[]): Promise<Map<string, Decimal>>;
  /** Sends the stored bytes; a transaction the node already has counts as sent. */
  broadcast(raw: string): Promise<void>;
  state(txid: string): Promise<TransactionState>;
  /**
   * Optional (EVM): a replacement for an in-flight transaction the loop follows (`broadcast`,
   * the newest of its family, in the mempool or dropped), or undefined to let it wait. A
   * replacement pays exactly the same (EVM: the same nonce, recipient, value and data, higher
   * fees), so at most one of them is ever mined; its `replaces_id` is `transaction.id`. Called
   * inside a database transaction with the chain locked; the loop stores what it returns
   * before broadcasting it.
   */
  replacement?(tx: Db, transaction: PayoutTransactionRow, state: TransactionState): Promise<SignedTransaction | undefined>;
}
