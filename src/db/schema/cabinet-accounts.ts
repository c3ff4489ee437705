import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';
import type { CabinetRole } from '../../domain/cabinet-roles.js';
import type { GeneratedTimestamp, Timestamp } from './currencies.js';

/** A person of a partner who signs in to the cabinet (docs/contract.md §9); several per partner. */
export interface CabinetUserTable {
  id: Generated<string>;
  partner_id: string;
  /** Lowercased; unique across partners (it is what signs in). */
  email: string;
  /** argon2id PHC string. */
  password_hash: string;
  /** The TOTP secret sealed under SECRETS_KEY (user id as associated data); null before enrolment. */
  totp_secret_sealed: Buffer | null;
  /** Set once a code from the enrolled secret was confirmed: from then on sign-in asks for a code. */
  totp_enabled_at: Timestamp | null;
  /** The time step (Unix seconds / 30) of the last code accepted; a code at or before it is refused. */
  totp_last_step: number | null;
  /** What the person may change (migration 0064; domain/cabinet-roles.ts). */
  role: CabinetRole;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

/** The operator's one-use invitation: its token travels in a link, only its SHA-256 is kept. */
export interface CabinetInvitationTable {
  id: Generated<string>;
  partner_id: string;
  email: string;
  token_hash: Buffer;
  expires_at: Timestamp;
  used_at: Timestamp | null;
  created_at: GeneratedTimestamp;
  /** The role the invited person gets: the operator's invitations make owners. */
  role: ColumnType<CabinetRole, CabinetRole | undefined, CabinetRole>;
  /** The owner who invited (null: the operator, or that owner was removed). */
  invited_by: ColumnType<string | null, string | null | undefined, string | null>;
  /** An owner's invitation: its token sealed under SECRETS_KEY until the owner's page showed the link once. */
  token_sealed: ColumnType<Buffer | null, Buffer | null | undefined, Buffer | null>;
}

/** A signed-in browser: the cookie holds the token, the row its SHA-256. */
export interface CabinetSessionTable {
  token_hash: Buffer;
  /** Names the session on the account page (to sign it out) without showing anything of its token. */
  id: Generated<string>;
  /** The browser's User-Agent at sign-in, cut to 256 characters; null when it sent none. */
  user_agent: string | null;
  user_id: string;
  partner_id: string;
  /** Password given, TOTP code not yet: only the code page is open. Default false. */
  second_factor_pending: Generated<boolean>;
  created_at: Timestamp;
  /** Moved forward by activity (at most once a minute): the idle timeout counts from here. */
  last_seen_at: Timestamp;
  /** The absolute end of the session. */
  expires_at: Timestamp;
}

/** The operator's one-use password reset link (migration 0027): only its token's SHA-256 is kept. */
export interface CabinetPasswordResetTable {
  id: Generated<string>;
  user_id: string;
  token_hash: Buffer;
  expires_at: Timestamp;
  /** Used, or voided by a newer link or a password change. */
  used_at: Timestamp | null;
  created_at: Timestamp;
  /** Using the link also clears the person's two-factor enrolment (the operator's `clear_2fa`, migration 0039). Default false. */
  clear_totp: Generated<boolean>;
}

/** What the operator did to a cabinet person, or a reset link's use (migration 0039); no foreign key to the person: it outlives them. */
export interface CabinetAccountActionTable {
  id: Generated<string>;
  partner_id: string;
  person_id: string;
  email: string;
  action: CabinetAccountAction;
  actor: 'operator' | 'person';
  /** The action clears two-factor (clear_2fa; a reset link issued with it, cleared on use; that link's use). */
  clear_2fa: boolean;
  /** Sessions the action ended; null when it ends none. */
  sessions_ended: number | null;
  ip: string | null;
  at: Timestamp;
}

export type CabinetAccountAction = 'clear_2fa' | 'end_sessions' | 'remove_person' | 'password_reset_issued' | 'password_reset_used';

/**
 * A secret a form just created, to be shown once by the page its redirect leads to (migration
 * 0032): names the key or endpoint whose sealed secret that page opens, never the secret.
 */
export interface CabinetRevealTable {
  id: Generated<string>;
  /** The session that created it: only that session's page may take it; gone with the session. */
  session_id: string;
  kind: CabinetRevealKind;
  /** The key id (api_key), the webhook endpoint id (webhook_secret) or the invitation id (invitation). */
  subject: string;
  created_at: Timestamp;
  /** After this it shows nothing (the redirect is followed at once). */
  expires_at: Timestamp;
}

export type CabinetRevealKind = 'api_key' | 'webhook_secret' | 'invitation';

/** One-use codes that stand in for a TOTP code when the authenticator is lost. */
export interface CabinetRecoveryCodeTable {
  user_id: string;
  code_hash: Buffer;
  used_at: Timestamp | null;
}

export type CabinetUserRow = Selectable<CabinetUserTable>;
export type NewCabinetUser = Insertable<CabinetUserTable>;
export type CabinetInvitationRow = Selectable<CabinetInvitationTable>;
export type CabinetSessionRow = Selectable<CabinetSessionTable>;
export type NewCabinetSession = Insertable<CabinetSessionTable>;
export type CabinetPasswordResetRow = Selectable<CabinetPasswordResetTable>;
export type CabinetAccountActionRow = Selectable<CabinetAccountActionTable>;
export type NewCabinetAccountAction = Insertable<CabinetAccountActionTable>;
