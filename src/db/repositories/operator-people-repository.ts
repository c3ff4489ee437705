import type { OperatorRole } from '../../domain/operator-roles.js';
import type { Db } from '../schema/index.js';
import { useOneTimeLink } from './account-tables-repository.js';
import type { NewOperatorPerson, NewOperatorSession, OperatorPersonRow, OperatorSessionRow, OperatorTokenRow } from '../schema/operator-people.js';

/** The operator's people, their invitations, sessions, recovery codes and API tokens (migration 0062). */

export async function insertOperatorPerson(db: Db, person: NewOperatorPerson): Promise<OperatorPersonRow> {
  return db.insertInto('operator_people').values(person).returningAll().executeTakeFirstOrThrow();
}

export async function findOperatorPerson(db: Db, id: string): Promise<OperatorPersonRow | undefined> {
  return db.selectFrom('operator_people').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findOperatorPersonByEmail(db: Db, email: string): Promise<OperatorPersonRow | undefined> {
  return db.selectFrom('operator_people').selectAll().where('email', '=', email).executeTakeFirst();
}

export async function countOperatorAdmins(db: Db): Promise<number> {
  const row = await db
    .selectFrom('operator_people')
    .select((eb) => eb.fn.countAll<string | number>().as('count'))
    .where('role', '=', 'admin')
    .where('password_hash', 'is not', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** A person as the people page lists them. */
export interface ListedOperatorPerson {
  id: string;
  email: string;
  name: string | null;
  role: OperatorRole;
  /** False until the invitation link was used. */
  active: boolean;
  two_factor: boolean;
  sessions: number;
  created_at: Date;
}

/** Everyone, by email; live sessions counted (alive at `now`, seen since `seenSince`). */
export async function listOperatorPeople(db: Db, now: Date, seenSince: Date): Promise<ListedOperatorPerson[]> {
  const rows = await db
    .selectFrom('operator_people as p')
    .select((eb) => [
      'p.id',
      'p.email',
      'p.name',
      'p.role',
      'p.password_hash',
      'p.totp_enabled_at',
      'p.created_at',
      eb
        .selectFrom('operator_sessions as s')
        .select((inner) => inner.fn.countAll<string | number>().as('count'))
        .whereRef('s.person_id', '=', 'p.id')
        .where('s.expires_at', '>', now)
        .where('s.last_seen_at', '>', seenSince)
        .as('sessions'),
    ])
    .orderBy('p.email')
    .execute();
  return rows.map(({ password_hash, totp_enabled_at, sessions, ...row }) => ({
    ...row,
    active: password_hash !== null,
    two_factor: totp_enabled_at !== null,
    sessions: Number(sessions ?? 0),
  }));
}

export async function setOperatorRole(db: Db, id: string, role: OperatorRole, at: Date): Promise<boolean> {
  const row = await db.updateTable('operator_people').set({ role, updated_at: at }).where('id', '=', id).returning('id').executeTakeFirst();
  return row !== undefined;
}

/** Removes the person: sessions, invitations, codes and tokens go with them (foreign keys cascade). */
export async function deleteOperatorPerson(db: Db, id: string): Promise<boolean> {
  const row = await db.deleteFrom('operator_people').where('id', '=', id).returning('id').executeTakeFirst();
  return row !== undefined;
}

/** A new link for the person; their earlier unused links are voided (only the newest works). */
export async function insertOperatorInvitation(db: Db, invitation: { person_id: string; token_hash: Buffer; expires_at: Date; created_at: Date }): Promise<void> {
  await db.updateTable('operator_invitations').set({ used_at: invitation.created_at }).where('person_id', '=', invitation.person_id).where('used_at', 'is', null).execute();
  await db.insertInto('operator_invitations').values(invitation).execute();
}

export interface FoundOperatorInvitation {
  id: string;
  person_id: string;
  email: string;
  expires_at: Date;
  used_at: Date | null;
}

export async function findOperatorInvitation(db: Db, tokenHash: Buffer): Promise<FoundOperatorInvitation | undefined> {
  return db
    .selectFrom('operator_invitations as i')
    .innerJoin('operator_people as p', 'p.id', 'i.person_id')
    .select(['i.id', 'i.person_id', 'p.email', 'i.expires_at', 'i.used_at'])
    .where('i.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** Uses the link once: false when it was used, voided or expired meanwhile. */
export function useOperatorInvitation(db: Db, id: string, at: Date): Promise<boolean> {
  return useOneTimeLink(db, 'operator_invitations', id, at);
}

export async function insertOperatorSession(db: Db, session: NewOperatorSession): Promise<void> {
  await db.insertInto('operator_sessions').values(session).execute();
}

/** A session with what every console page needs of its person. */
export interface OperatorSessionWithPerson {
  session: OperatorSessionRow;
  email: string;
  name: string | null;
  role: OperatorRole;
  totpEnabled: boolean;
}

export async function findOperatorSession(db: Db, tokenHash: Buffer): Promise<OperatorSessionWithPerson | undefined> {
  const row = await db
    .selectFrom('operator_sessions as s')
    .innerJoin('operator_people as p', 'p.id', 's.person_id')
    .select(['s.token_hash', 's.id', 's.person_id', 's.second_factor_pending', 's.user_agent', 's.created_at', 's.last_seen_at', 's.expires_at', 'p.email', 'p.name', 'p.role', 'p.totp_enabled_at'])
    .where('s.token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  const { email, name, role, totp_enabled_at, ...session } = row;
  return { session, email, name, role, totpEnabled: totp_enabled_at !== null };
}

export async function insertOperatorToken(db: Db, token: { person_id: string; label: string; role: OperatorRole; token_hash: Buffer; created_at: Date }): Promise<string> {
  const row = await db.insertInto('operator_tokens').values(token).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export type ListedOperatorToken = Pick<OperatorTokenRow, 'id' | 'label' | 'role' | 'created_at' | 'last_used_at' | 'revoked_at'>;

/** The person's tokens, newest first. */
export async function listOperatorTokens(db: Db, personId: string): Promise<ListedOperatorToken[]> {
  return db
    .selectFrom('operator_tokens')
    .select(['id', 'label', 'role', 'created_at', 'last_used_at', 'revoked_at'])
    .where('person_id', '=', personId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();
}

/** Revokes the person's token: false when it is none of theirs or was revoked already. */
export async function revokeOperatorToken(db: Db, personId: string, id: string, at: Date): Promise<boolean> {
  const row = await db
    .updateTable('operator_tokens')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('person_id', '=', personId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** A live token by its hash, with its person's email and role of the moment. */
export async function findOperatorToken(
  db: Db,
  tokenHash: Buffer,
): Promise<{ id: string; person_id: string; role: OperatorRole; person_role: OperatorRole; email: string; last_used_at: Date | null } | undefined> {
  return db
    .selectFrom('operator_tokens as t')
    .innerJoin('operator_people as p', 'p.id', 't.person_id')
    .select(['t.id', 't.person_id', 't.role', 'p.role as person_role', 'p.email', 't.last_used_at'])
    .where('t.token_hash', '=', tokenHash)
    .where('t.revoked_at', 'is', null)
    .where('p.totp_enabled_at', 'is not', null)
    .executeTakeFirst();
}

export async function touchOperatorToken(db: Db, id: string, at: Date): Promise<void> {
  await db.updateTable('operator_tokens').set({ last_used_at: at }).where('id', '=', id).execute();
}
