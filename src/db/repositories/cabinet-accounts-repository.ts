import type { CabinetAccountActionRow, CabinetInvitationRow, CabinetPasswordResetRow, CabinetUserRow, NewCabinetAccountAction, NewCabinetUser } from '../schema/cabinet-accounts.js';
import type { Db } from '../schema/index.js';
import { useOneTimeLink } from './account-tables-repository.js';
import type { CabinetRole } from '../../domain/cabinet-roles.js';

/** The cabinet's people, the operator's invitations and the two-factor recovery codes (docs/contract.md §9). */

export async function insertInvitation(
  db: Db,
  invitation: { partner_id: string; email: string; token_hash: Buffer; expires_at: Date; created_at: Date; role?: CabinetRole; invited_by?: string; token_sealed?: Buffer },
): Promise<CabinetInvitationRow> {
  return db.insertInto('cabinet_invitations').values(invitation).returningAll().executeTakeFirstOrThrow();
}

/** An invitation by its token's hash, used or not (the caller tells why it cannot be used). */
export async function findInvitation(db: Db, tokenHash: Buffer): Promise<CabinetInvitationRow | undefined> {
  return db.selectFrom('cabinet_invitations').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** Marks the invitation used, once: false when it was used (or expired) meanwhile. Its sealed token goes too. */
export async function useInvitation(db: Db, id: string, at: Date): Promise<boolean> {
  if (!(await useOneTimeLink(db, 'cabinet_invitations', id, at))) return false;
  await db.updateTable('cabinet_invitations').set({ token_sealed: null }).where('id', '=', id).execute();
  return true;
}

/** An owner's invitation's sealed token, taken once (it is forgotten here): the page shows its link. */
export async function takeInvitationToken(db: Db, partnerId: string, id: string): Promise<Pick<CabinetInvitationRow, 'email' | 'role' | 'expires_at' | 'token_sealed'> | undefined> {
  return db
    .updateTable('cabinet_invitations as i')
    .set({ token_sealed: null })
    .from('cabinet_invitations as before')
    .whereRef('before.id', '=', 'i.id')
    .where('i.id', '=', id)
    .where('i.partner_id', '=', partnerId)
    .where('i.token_sealed', 'is not', null)
    .returning(['before.email', 'before.role', 'before.expires_at', 'before.token_sealed'])
    .executeTakeFirst();
}

/** The partner's owners, locked until the transaction ends (so two changes cannot leave none). */
export async function lockPartnerOwners(db: Db, partnerId: string): Promise<string[]> {
  const rows = await db.selectFrom('cabinet_users').select('id').where('partner_id', '=', partnerId).where('role', '=', 'owner').orderBy('id').forUpdate().execute();
  return rows.map((row) => row.id);
}

export async function setPersonRole(db: Db, partnerId: string, id: string, role: CabinetRole, at: Date): Promise<boolean> {
  const updated = await db.updateTable('cabinet_users').set({ role, updated_at: at }).where('id', '=', id).where('partner_id', '=', partnerId).returning('id').executeTakeFirst();
  return updated !== undefined;
}

export async function insertCabinetUser(db: Db, user: NewCabinetUser): Promise<CabinetUserRow> {
  return db.insertInto('cabinet_users').values(user).returningAll().executeTakeFirstOrThrow();
}

export async function findCabinetUserByEmail(db: Db, email: string): Promise<CabinetUserRow | undefined> {
  return db.selectFrom('cabinet_users').selectAll().where('email', '=', email).executeTakeFirst();
}

export async function findCabinetUser(db: Db, id: string): Promise<CabinetUserRow | undefined> {
  return db.selectFrom('cabinet_users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The partner's people, oldest first. */
export async function listPartnerCabinetUsers(db: Db, partnerId: string): Promise<Array<Pick<CabinetUserRow, 'id' | 'email' | 'role' | 'totp_enabled_at' | 'created_at'>>> {
  return db
    .selectFrom('cabinet_users')
    .select(['id', 'email', 'role', 'totp_enabled_at', 'created_at'])
    .where('partner_id', '=', partnerId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function insertPasswordReset(
  db: Db,
  reset: { user_id: string; token_hash: Buffer; expires_at: Date; created_at: Date; clear_totp?: boolean },
): Promise<CabinetPasswordResetRow> {
  return db.insertInto('cabinet_password_resets').values(reset).returningAll().executeTakeFirstOrThrow();
}

/** A reset link by its token's hash, with the email of its person (the caller tells why it cannot be used). */
export async function findPasswordReset(db: Db, tokenHash: Buffer): Promise<(CabinetPasswordResetRow & { email: string; partner_id: string }) | undefined> {
  return db
    .selectFrom('cabinet_password_resets as r')
    .innerJoin('cabinet_users as u', 'u.id', 'r.user_id')
    .select(['r.id', 'r.user_id', 'r.token_hash', 'r.expires_at', 'r.used_at', 'r.created_at', 'r.clear_totp', 'u.email', 'u.partner_id'])
    .where('r.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** Uses the link, once: false when it was used, voided or expired meanwhile. */
export function usePasswordReset(db: Db, id: string, at: Date): Promise<boolean> {
  return useOneTimeLink(db, 'cabinet_password_resets', id, at);
}

/** Voids every unused reset link of the user (a newer link, a reset done, or a password change supersedes them). */
export async function voidPasswordResets(db: Db, userId: string, at: Date): Promise<void> {
  await db.updateTable('cabinet_password_resets').set({ used_at: at }).where('user_id', '=', userId).where('used_at', 'is', null).execute();
}

/** A person of the partner as the operator lists them: live sessions counted (alive at `now`, seen since `seenSince`). */
export interface ListedPerson {
  id: string;
  email: string;
  totp_enabled_at: Date | null;
  created_at: Date;
  sessions: number;
}

/** The partner's people with their live sessions, oldest first. */
export async function listPartnerPeople(db: Db, partnerId: string, now: Date, seenSince: Date): Promise<ListedPerson[]> {
  const rows = await db
    .selectFrom('cabinet_users as u')
    .select((eb) => [
      'u.id',
      'u.email',
      'u.totp_enabled_at',
      'u.created_at',
      eb
        .selectFrom('cabinet_sessions as s')
        .select((inner) => inner.fn.countAll<string | number>().as('count'))
        .whereRef('s.user_id', '=', 'u.id')
        .where('s.expires_at', '>', now)
        .where('s.last_seen_at', '>', seenSince)
        .as('sessions'),
    ])
    .where('u.partner_id', '=', partnerId)
    .orderBy('u.created_at')
    .orderBy('u.id')
    .execute();
  return rows.map((row) => ({ ...row, sessions: Number(row.sessions ?? 0) }));
}

/** The partner's person `personId`: undefined when it is nobody of that partner. */
export async function findPartnerPerson(db: Db, partnerId: string, personId: string): Promise<CabinetUserRow | undefined> {
  return db.selectFrom('cabinet_users').selectAll().where('id', '=', personId).where('partner_id', '=', partnerId).executeTakeFirst();
}

/** Removes the person: their sessions, recovery codes, reset links and reveals go with them (foreign keys cascade). */
export async function deleteCabinetUser(db: Db, id: string): Promise<boolean> {
  const deleted = await db.deleteFrom('cabinet_users').where('id', '=', id).returning('id').executeTakeFirst();
  return deleted !== undefined;
}

/** Records an operator action on a person, or a reset link's use (migration 0039). */
export async function insertAccountAction(db: Db, action: NewCabinetAccountAction): Promise<CabinetAccountActionRow> {
  return db.insertInto('cabinet_account_actions').values(action).returningAll().executeTakeFirstOrThrow();
}

/** The partner's recorded account actions, newest first. */
export async function listAccountActions(db: Db, partnerId: string, limit: number): Promise<CabinetAccountActionRow[]> {
  return db
    .selectFrom('cabinet_account_actions')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
