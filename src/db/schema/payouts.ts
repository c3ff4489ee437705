import type { Generated, Selectable } from 'kysely';
import type { Numeric, Timestamp } from './currencies.js';

/** The outbox: one payout and at most one refund per order, recorded with the transition. */
export interface PayoutTable {
  id: Generated<string>;
  order_id: string;
  kind: 'payout' | 'refund';
  chain: string;
  address: string;
  tag: string | null;
  /** In the coin being sent. */
  amount: Numeric;
  status: Generated<'requested' | 'sent' | 'failed'>;
  txid: string | null;
  created_at: Timestamp;
  sent_at: Timestamp | null;
}

export type PayoutRow = Selectable<PayoutTable>;

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
