import type { Selectable } from 'kysely';
import type { Numeric, Timestamp } from './currencies.js';

/** A fixed-rate quote that can be locked by an order until `expires_at`. */
export interface FixedQuoteTable {
  id: string;
  /** Null for a quote asked without a key. */
  partner_id: string | null;
  currency_from_id: string;
  currency_to_id: string;
  amount_from: Numeric;
  amount_to: Numeric;
  /** The amount_to a reverse quote was asked for (≤ amount_to); null for a quote by amount. */
  amount_to_requested: Numeric | null;
  /** The published rate (rounded down to coin_to decimals). */
  rate: Numeric;
  /** The exact net rate an order locks. */
  exact_rate: Numeric;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export type FixedQuoteRow = Selectable<FixedQuoteTable>;
