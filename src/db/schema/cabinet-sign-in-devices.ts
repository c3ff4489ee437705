import type { Timestamp } from './currencies.js';

/** A browser a cabinet person signed in from (migration 0072): only a hash of User-Agent and address. */
export interface CabinetSignInDeviceTable {
  user_id: string;
  /** SHA-256 of the User-Agent and the client address. */
  device_hash: Buffer;
  first_seen_at: Timestamp;
  last_seen_at: Timestamp;
}
