import type { AccountTables } from '../db/repositories/account-tables-repository.js';
import type { Db } from '../db/schema/index.js';

/**
 * Who an account implementation serves: the partner cabinet's people or the operator console's.
 * The sessions (account-sessions.ts), passwords and TOTP two-factor (two-factor.ts) and CSRF
 * tokens (account-secrets.ts) are one implementation; an audience names its tables and the few
 * rules and reads that differ.
 */

/** ASVS 3.3.2 (level 2): a session ends after 30 minutes without activity, and 12 hours after sign-in whatever happens. */
export const SESSION_IDLE_MS = 30 * 60_000;
export const SESSION_ABSOLUTE_MS = 12 * 3_600_000;
/** An invitation link works this long, once (docs/contract.md §9). */
export const INVITATION_TTL_MS = 72 * 3_600_000;

/** What every person row holds, whatever else its audience adds. */
export interface AccountPerson {
  id: string;
  email: string;
  /** argon2id PHC string; null while a console person has not used their invitation. */
  password_hash: string | null;
  totp_secret_sealed: Buffer | null;
  totp_enabled_at: Date | null;
  totp_last_step: number | null;
}

/** A session as its audience reads it: the row, beside what its pages need of the person. */
export interface FoundSession {
  session: { token_hash: Buffer; id: string; second_factor_pending: boolean; created_at: Date; last_seen_at: Date; expires_at: Date };
}

/** A session about to be stored, the person named by the audience's own column. */
export interface NewAccountSession {
  token_hash: Buffer;
  second_factor_pending: boolean;
  user_agent: string | null;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
}

export interface AccountAudience<P extends AccountPerson, S extends FoundSession> {
  tables: AccountTables;
  /** Names the CSRF key derived from SECRETS_KEY, so one audience's form token is never good on the other. */
  csrfPurpose: string;
  /** The issuer an authenticator app shows beside the account. */
  totpIssuer: string;
  /** The associated data the person's TOTP secret is sealed with. */
  totpContext: (personId: string) => string;
  /** How long a session waiting for its second factor (or its enrolment) lasts. */
  secondFactorWindowMs: number;
  /**
   * True (the console): every sign-in waits for a second factor, and a person without one enrols
   * before anything opens. False (the cabinet): only a person who enrolled is asked for a code.
   */
  twoFactorRequired: boolean;
  findPerson(db: Db, id: string): Promise<P | undefined>;
  findPersonByEmail(db: Db, email: string): Promise<P | undefined>;
  /** The session a token's hash names, with what every page of the audience needs. */
  findSession(db: Db, tokenHash: Buffer): Promise<S | undefined>;
  /** The person a found session belongs to. */
  personOf(found: S): string;
  insertSession(db: Db, person: P, session: NewAccountSession): Promise<void>;
}
