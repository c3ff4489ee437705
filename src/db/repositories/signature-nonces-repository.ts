import type { Db } from '../schema/index.js';

/**
 * Records `id` as used until `expiresAt`; true when it was not in use (the first claim), false
 * for a replay. A row past its expiry is taken over (and counts as a first claim).
 */
export async function claimSignatureNonce(db: Db, id: string, expiresAt: Date, now: Date): Promise<boolean> {
  const row = await db
    .insertInto('signature_nonces')
    .values({ id, expires_at: expiresAt })
    .onConflict((conflict) => conflict.column('id').doUpdateSet({ expires_at: expiresAt }).where('signature_nonces.expires_at', '<=', now))
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Deletes up to `limit` expired rows; returns how many went. */
export async function purgeSignatureNonces(db: Db, now: Date, limit = 10_000): Promise<number> {
  const result = await db
    .deleteFrom('signature_nonces')
    .where('id', 'in', db.selectFrom('signature_nonces').select('id').where('expires_at', '<=', now).limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
