import type { Db } from '../schema/index.js';

/** What a sign-in's device was to the person: never seen, seen before, or the person's first device of all. */
export type DeviceSeen = 'known' | 'new' | 'first';

/**
 * Records that the person signed in from `deviceHash` at `at`, after pruning their devices not
 * seen since `forgetBefore`; answers whether the device was known, new, or the first one the
 * person has (no other device on record: the sign-in right after the invitation or a reset).
 */
export async function recordSignInDevice(db: Db, userId: string, deviceHash: Buffer, at: Date, forgetBefore: Date): Promise<DeviceSeen> {
  await db.deleteFrom('cabinet_sign_in_devices').where('user_id', '=', userId).where('last_seen_at', '<', forgetBefore).execute();
  const seen = await db.selectFrom('cabinet_sign_in_devices').select('device_hash').where('user_id', '=', userId).execute();
  await db
    .insertInto('cabinet_sign_in_devices')
    .values({ user_id: userId, device_hash: deviceHash, first_seen_at: at, last_seen_at: at })
    .onConflict((conflict) => conflict.columns(['user_id', 'device_hash']).doUpdateSet({ last_seen_at: at }))
    .execute();
  if (seen.length === 0) return 'first';
  return seen.some((row) => row.device_hash.equals(deviceHash)) ? 'known' : 'new';
}
