import type { Generated, Insertable, Selectable } from 'kysely';
import type { OperatorRole } from '../../domain/operator-roles.js';
import type { Timestamp } from './currencies.js';

/** A person who runs the exchange (migration 0062). */
export interface OperatorPersonTable {
  id: Generated<string>;
  /** Lowercased; unique; what signs in. */
  email: string;
  /** Shown beside the email; null when none was given. */
  name: string | null;
  role: OperatorRole;
  /** argon2id PHC string; null until the invitation link was used. */
  password_hash: string | null;
  /** The TOTP secret sealed under SECRETS_KEY (`operator-totp:<id>` as associated data). */
  totp_secret_sealed: Buffer | null;
  /** Set once the enrolment was confirmed with a code. */
  totp_enabled_at: Timestamp | null;
  /** The time step of the last code accepted; a code at or before it is refused. */
  totp_last_step: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A one-use link that sets the person's password (72 h); only its token's SHA-256 is kept. */
export interface OperatorInvitationTable {
  id: Generated<string>;
  person_id: string;
  token_hash: Buffer;
  expires_at: Timestamp;
  used_at: Timestamp | null;
  created_at: Timestamp;
}

/** A signed-in browser of the console: the cookie holds the token, the row its SHA-256. */
export interface OperatorSessionTable {
  token_hash: Buffer;
  id: Generated<string>;
  person_id: string;
  /** True until the second factor (or its first enrolment) is done. Default true. */
  second_factor_pending: Generated<boolean>;
  user_agent: string | null;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  expires_at: Timestamp;
}

export interface OperatorRecoveryCodeTable {
  person_id: string;
  code_hash: Buffer;
  used_at: Timestamp | null;
}

/** A person's API token for the operator API (`Bearer opt_…`); only its SHA-256 is kept. */
export interface OperatorTokenTable {
  id: Generated<string>;
  person_id: string;
  label: string;
  /** The most the token may do; never more than its person's role of the moment. */
  role: OperatorRole;
  token_hash: Buffer;
  created_at: Timestamp;
  last_used_at: Timestamp | null;
  revoked_at: Timestamp | null;
}

export type OperatorPersonRow = Selectable<OperatorPersonTable>;
export type NewOperatorPerson = Insertable<OperatorPersonTable>;
export type OperatorSessionRow = Selectable<OperatorSessionTable>;
export type NewOperatorSession = Insertable<OperatorSessionTable>;
export type OperatorTokenRow = Selectable<OperatorTokenTable>;
