import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Numeric, Timestamp } from './currencies.js';

/**
 * The outbox: one payout and at most one refund per order, recorded with the transition; and
 * commission payouts (migration 0066), one per partner, currency and period, which belong to no order.
 */
export interface PayoutTable {
  id: Generated<string>;
  /** The order paid or refunded; null for a commission payout. */
  order_id: string | null;
  kind: PayoutKind;
  /** A commission payout's partner (migration 0066); null for an order's. */
  partner_id: string | null;
  /** A commission payout's period, `YYYY-MM` (UTC months); null for an order's. */
  period: string | null;
  chain: string;
  address: string;
  tag: string | null;
  /** In the coin being sent. */
  amount: Numeric;
  status: Generated<PayoutStatus>;
  txid: string | null;
  created_at: Timestamp;
  sent_at: Timestamp | null;
  /** Who pays it, fixed when recorded (migration 0051): the signer (PAYOUT_SIGNER_CHAINS) or the simulator. */
  payer: Generated<'simulator' | 'signer'>;
  /** The currency paid (migration 0051); null on rows recorded before it. */
  currency_id: string | null;
  /** Why a requested payout waits (`awaiting_liquidity`, `paused`); null when it does not. */
  status_reason: string | null;
  /** Why a failed payout failed, in words (`policy: …`). */
  failure_reason: string | null;
  approved_by: string | null;
  approved_at: Timestamp | null;
  /** The transaction that pays it now (payout_transactions); the mined one once confirmed. */
  transaction_id: string | null;
  /** Its share of the network fee, in the chain's own coin, once signed. */
  fee: Numeric | null;
  signed_at: Timestamp | null;
  confirmed_at: Timestamp | null;
  updated_at: Timestamp | null;
}

export type PayoutKind = 'payout' | 'refund' | 'commission';

/**
 * docs/contract.md §11.2: requested → (awaiting_approval →) signed → broadcast → confirmed, or failed.
 * `sent`: settled by the simulator, which has no transaction to follow.
 */
export type PayoutStatus = 'requested' | 'awaiting_approval' | 'signed' | 'broadcast' | 'confirmed' | 'sent' | 'failed';

/** A transaction the signer made; stored before it is broadcast (migration 0051). */
export interface PayoutTransactionTable {
  id: Generated<string>;
  chain: string;
  txid: string;
  /** The signed transaction, hex: what is broadcast, and broadcast again after a crash. */
  raw: string;
  /** The whole network fee, in the chain's own coin. */
  fee: Numeric;
  vsize: number | null;
  /** Outpoints spent (`txid:vout`): reserved while the transaction is in flight. */
  inputs: Generated<string[]>;
  nonce: string | null;
  replaces_id: string | null;
  state: Generated<'signed' | 'broadcast' | 'mined' | 'replaced' | 'conflicted'>;
  confirmations: Generated<number>;
  created_at: Timestamp;
  broadcast_at: Timestamp | null;
  mined_at: Timestamp | null;
  /**
   * EVM: the chain's height when the signer first saw it in flight unmined, the replacement
   * clock (migration 0054), kept so a restarted signer replaces on time; null before.
   */
  seen_unmined_at_block: Generated<string | null>;
}

export type PayoutTransactionRow = Selectable<PayoutTransactionTable>;

export interface HotWalletIndexTable {
  chain: string;
  next_change_index: Generated<number>;
}

/** The view the signer checks each payout against (migration 0051). */
export interface SignerPayoutCheckView {
  payout_id: string;
  /** What the order says must be sent: amount_to_final, or the received amount for a refund. */
  expected_amount: Numeric | null;
  sandbox: boolean;
  to_own_address: boolean;
}

export type PayoutRow = Selectable<PayoutTable>;

/** Where a partner's commission in one currency is paid, from `effective_at` on (migration 0066). */
export interface PartnerPayoutAddressTable {
  id: Generated<string>;
  partner_id: string;
  currency_id: string;
  address: string;
  tag: string | null;
  /** The cabinet person who asked for it; null when the operator set it. */
  requested_by: string | null;
  requested_at: Timestamp;
  /** 24 hours after requested_at: until then the address in force is the one before. */
  effective_at: Timestamp;
  cancelled_at: Timestamp | null;
  cancelled_by: string | null;
}

export type PartnerPayoutAddressRow = Selectable<PartnerPayoutAddressTable>;

/** Simulator state (see chains/simulator). */
export interface SimulatedDepositTable {
  order_id: string;
  txid: string;
  amount: Numeric;
  confirmations: number;
  dropped: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface SimulatorFaultTable {
  step: 'exchange' | 'payout' | 'refund';
  remaining: number;
  permanent: boolean;
}

export interface SimulatedSendTable {
  idempotency_key: string;
  txid: string;
  address: string;
  amount: Numeric;
  created_at: Timestamp;
}

/** A pause of the signer for one chain or every chain (`*`), migration 0053. */
export interface SignerPauseTable {
  chain: string;
  paused_by: string;
  reason: string | null;
  paused_at: Timestamp;
}

export interface SignerPauseEventTable {
  id: Generated<string>;
  chain: string;
  action: 'pause' | 'resume';
  actor: string;
  reason: string | null;
  created_at: Timestamp;
}

/** What the hot wallet can pay per currency, as the signer last read it (migration 0054). */
export interface HotWalletBalanceTable {
  currency_id: string;
  chain: string;
  /** Decimal, in the currency's units: coins no stored transaction spends (see the migration). */
  spendable: Numeric;
  read_at: Timestamp;
}

/** What the signer's last pass saw of a chain's fee estimate and node (migration 0054). */
export interface SignerChainReadingTable {
  chain: string;
  /** `sat/vB` (Bitcoin family) or `gwei` (EVM: the fee cap per gas). */
  fee_unit: string;
  fee_estimate: Numeric | null;
  fee_used: Numeric | null;
  /** What bounded the last fee (fee-guard.ts FeeBound): empty when the estimate was used as it is. */
  fee_bounds: ColumnType<string[], string[] | undefined, string[]>;
  /** Why the node is behind its chain (nothing is signed on its view), or null. */
  node_behind: string | null;
  read_at: Timestamp;
}
