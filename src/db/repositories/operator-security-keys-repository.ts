import type { Db } from '../schema/index.js';
import type { NewOperatorSecurityKey, OperatorSecurityKeyRow, WebauthnPurpose } from '../schema/operator-security-keys.js';

/** The operator people's WebAuthn security keys and the challenges of their ceremonies (migration 0075). */

/** Stores a new key: its id, or undefined when its credential id is registered already (to anyone). */
export async function insertOperatorSecurityKey(db: Db, key: NewOperatorSecurityKey): Promise<string | undefined> {
  const row = await db.insertInto('operator_security_keys').values(key).onConflict((oc) => oc.column('credential_id').doNothing()).returning('id').executeTakeFirst();
  return row?.id;
}

/** The person's keys, oldest first (the order they were added in). */
export function listOperatorSecurityKeys(db: Db, personId: string): Promise<OperatorSecurityKeyRow[]> {
  return db.selectFrom('operator_security_keys').selectAll().where('person_id', '=', personId).orderBy('created_at').orderBy('id').execute();
}

/** The key an assertion names, whoever it belongs to (the caller checks the person). */
export function findOperatorSecurityKeyByCredential(db: Db, credentialId: string): Promise<OperatorSecurityKeyRow | undefined> {
  return db.selectFrom('operator_security_keys').selectAll().where('credential_id', '=', credentialId).executeTakeFirst();
}

/**
 * Records a verified assertion: the counter it reported and when. Only while the stored counter is
 * still `seenCount`, so of two assertions checked against the same counter at once only one
 * counts (the other is a replay or a clone). False when the counter moved meanwhile.
 */
export async function recordOperatorSecurityKeyUse(db: Db, id: string, seenCount: number, newCount: number, at: Date): Promise<boolean> {
  const row = await db
    .updateTable('operator_security_keys')
    .set({ sign_count: newCount, last_used_at: at })
    .where('id', '=', id)
    .where('sign_count', '=', seenCount)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Removes one of the person's keys: false when `id` is none of theirs. */
export async function deleteOperatorSecurityKey(db: Db, personId: string, id: string): Promise<boolean> {
  const row = await db.deleteFrom('operator_security_keys').where('id', '=', id).where('person_id', '=', personId).returning('id').executeTakeFirst();
  return row !== undefined;
}

/** Removes every key of the person (their two-factor cleared): how many went. */
export async function deleteOperatorSecurityKeys(db: Db, personId: string): Promise<number> {
  const result = await db.deleteFrom('operator_security_keys').where('person_id', '=', personId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The session's challenge for `purpose`, replacing the one it had (an earlier page's ceremony then fails). */
export async function putWebauthnChallenge(db: Db, challenge: { session_id: string; purpose: WebauthnPurpose; challenge: string; expires_at: Date }): Promise<void> {
  await db
    .insertInto('operator_webauthn_challenges')
    .values(challenge)
    .onConflict((oc) => oc.columns(['session_id', 'purpose']).doUpdateSet({ challenge: challenge.challenge, expires_at: challenge.expires_at }))
    .execute();
}

/** Takes the session's challenge for `purpose` (deleted as it is read: a challenge is good once); undefined when none. */
export function takeWebauthnChallenge(db: Db, sessionId: string, purpose: WebauthnPurpose): Promise<{ challenge: string; expires_at: Date } | undefined> {
  return db
    .deleteFrom('operator_webauthn_challenges')
    .where('session_id', '=', sessionId)
    .where('purpose', '=', purpose)
    .returning(['challenge', 'expires_at'])
    .executeTakeFirst();
}
