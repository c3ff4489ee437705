import type { Generated } from 'kysely';
import type { LedgerKind, StoredAccount } from '../../domain/ledger.js';
import type { Numeric, Timestamp } from './currencies.js';

/** One ledger transaction (migration 0056): its lines balance per asset, checked at commit. */
export interface LedgerTransactionTable {
  id: Generated<string>;
  kind: LedgerKind;
  /** The order whose move posted it; null for an operator's transfer and a commission payout. */
  order_id: string | null;
  /** The commission payout it settles (kind `commission_payout`, migration 0066); null otherwise. */
  payout_id: Generated<string | null>;
  /** The operator's words for a transfer; null for an order's posting. */
  memo: string | null;
  /** Who made a transfer (as the operator gave it); null for an order's posting. */
  actor: string | null;
  created_at: Timestamp;
}

/** One line: debit positive, credit negative, exact (NUMERIC without scale), never zero. Append-only. */
export interface LedgerEntryTable {
  /** The order lines were written in (identity). */
  id: Generated<number>;
  transaction_id: string;
  account: StoredAccount;
  /** domain/asset-name.ts: `BTC`, `USDT_ETH`. */
  asset: string;
  amount: Numeric;
  order_id: string | null;
  partner_id: string | null;
}
