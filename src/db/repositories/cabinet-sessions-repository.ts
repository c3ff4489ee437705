import type { CabinetRevealKind, CabinetSessionRow, NewCabinetSession } from '../schema/cabinet-accounts.js';
import type { Db } from '../schema/index.js';
import type { PartnerStatus } from '../schema/partners.js';
import type { CabinetRole } from '../../domain/cabinet-roles.js';

/** Cabinet sessions: the cookie's token is never stored, only its SHA-256 (the primary key). */

export async function insertSession(db: Db, session: NewCabinetSession): Promise<void> {
  await db.insertInto('cabinet_sessions').values(session).execute();
}

/** A session with what every page needs of its person and partner, in one indexed read. */
export interface SessionWithUser {
  session: CabinetSessionRow;
  email: string;
  /** The person's team role (domain/cabinet-roles.ts): what their forms may change. */
  role: CabinetRole;
  totpEnabled: boolean;
  partnerName: string;
  partnerStatus: PartnerStatus;
  /** The partner's per-key budget (`rate_limit_per_minute`): its cabinet's actions spend the partner's share of it. */
  partnerRateLimit: number;
}

export async function findSession(db: Db, tokenHash: Buffer): Promise<SessionWithUser | undefined> {
  const row = await db
    .selectFrom('cabinet_sessions as s')
    .innerJoin('cabinet_users as u', 'u.id', 's.user_id')
    .innerJoin('partners as p', 'p.id', 's.partner_id')
    .select([
      's.token_hash', 's.id', 's.user_agent', 's.user_id', 's.partner_id', 's.second_factor_pending', 's.created_at', 's.last_seen_at', 's.expires_at',
      'u.email', 'u.role', 'u.totp_enabled_at', 'p.name', 'p.status', 'p.rate_limit_per_minute',
    ])
    .where('s.token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  const { email, role, totp_enabled_at, name, status, rate_limit_per_minute, ...session } = row;
  return { session, email, role, totpEnabled: totp_enabled_at !== null, partnerName: name, partnerStatus: status, partnerRateLimit: rate_limit_per_minute };
}

/**
 * A one-use reveal of `subject` for the session (migration 0032); the session's reveals past
 * their time go at the same moment. Returns the reveal's id, which the redirect names.
 */
export async function insertReveal(db: Db, reveal: { sessionId: string; kind: CabinetRevealKind; subject: string; at: Date; expiresAt: Date }): Promise<string> {
  await db.deleteFrom('cabinet_reveals').where('session_id', '=', reveal.sessionId).where('expires_at', '<=', reveal.at).execute();
  const row = await db
    .insertInto('cabinet_reveals')
    .values({ session_id: reveal.sessionId, kind: reveal.kind, subject: reveal.subject, created_at: reveal.at, expires_at: reveal.expiresAt })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * Takes (deletes) the session's reveal `id` of `kind`: its subject while it has not expired at
 * `now`, else undefined. A second take of the same id finds nothing; another session's id is
 * never found.
 */
export async function takeReveal(db: Db, sessionId: string, id: string, kind: CabinetRevealKind, now: Date): Promise<string | undefined> {
  const row = await db
    .deleteFrom('cabinet_reveals')
    .where('id', '=', id)
    .where('session_id', '=', sessionId)
    .where('kind', '=', kind)
    .returning(['subject', 'expires_at'])
    .executeTakeFirst();
  return row !== undefined && row.expires_at > now ? row.subject : undefined;
}
