import type { Timestamp } from './currencies.js';

/** A timestamped request signature already accepted (docs/contract.md §7.7), kept until it could no longer be. */
export interface SignatureNonceTable {
  /** `<key_id>:<lowercase hex signature>`. */
  id: string;
  expires_at: Timestamp;
}
