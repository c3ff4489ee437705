import type { Generated, Insertable, Selectable } from 'kysely';
import type { Timestamp } from './currencies.js';

/** A WebAuthn security key of an operator person, a second factor (migration 0075). */
export interface OperatorSecurityKeyTable {
  id: Generated<string>;
  person_id: string;
  /** The credential id as the browser names it (base64url); unique across people. */
  credential_id: string;
  /** The COSE public key the authenticator gave at registration. */
  public_key: Buffer;
  /** The signature counter last reported; 0 for an authenticator that keeps none. */
  sign_count: Generated<number>;
  /** The transports the browser reported (`usb`, `nfc`, `ble`, `internal`, `hybrid`): a hint for the next ceremony. */
  transports: Generated<string[]>;
  /** What the person calls it. */
  name: string;
  created_at: Timestamp;
  last_used_at: Timestamp | null;
}

export type WebauthnPurpose = 'registration' | 'authentication';

/** The challenge of a ceremony a console session has under way: one per session and purpose, taken once. */
export interface OperatorWebauthnChallengeTable {
  session_id: string;
  purpose: WebauthnPurpose;
  /** base64url, as the options sent to the browser carry it. */
  challenge: string;
  expires_at: Timestamp;
}

export type OperatorSecurityKeyRow = Selectable<OperatorSecurityKeyTable>;
export type NewOperatorSecurityKey = Insertable<OperatorSecurityKeyTable>;
