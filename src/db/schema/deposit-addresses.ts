import type { Generated } from 'kysely';
import type { GeneratedTimestamp, Timestamp } from './currencies.js';

/** Every deposit address ever handed out (or loaded into a pool): never reused. */
export interface DepositAddressTable {
  id: Generated<string>;
  chain: string;
  address: string;
  /** Memo / destination tag; '' when none. */
  tag: Generated<string>;
  /** `sandbox`: a sandbox order's keyless address (migration 0026), no wallet's and no pool's. */
  strategy: 'hd' | 'memo' | 'pool' | 'sandbox';
  derivation_index: number | null;
  order_id: string | null;
  created_at: GeneratedTimestamp;
  assigned_at: Timestamp | null;
}

/** An operator's low-pool alert threshold for a chain's deposit address pool (migration 0074). */
export interface AddressPoolAlertTable {
  chain: string;
  /** The pool is low while it has fewer free addresses than this. */
  low_at: number;
  updated_at: Timestamp;
}

/** Idempotency-Key records, kept 24 hours per partner. */
export interface IdempotencyKeyTable {
  partner_id: string;
  key: string;
  /** SHA-256 of the request body bytes. */
  request_hash: Buffer;
  /** Null while the first request is still in flight. */
  order_id: string | null;
  created_at: Timestamp;
}
