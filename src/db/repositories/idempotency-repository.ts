import type { Selectable } from 'kysely';
import type { IdempotencyKeyTable } from '../schema/deposit-addresses.js';
import type { Db } from '../schema/index.js';

export type IdempotencyRecord = Selectable<IdempotencyKeyTable>;

/** Claims a key; false when a record for it already exists. */
export async function claimIdempotencyKey(db: Db, record: IdempotencyRecord): Promise<boolean> {
  const inserted = await db
    .insertInto('idempotency_keys')
    .values(record)
    .onConflict((conflict) => conflict.columns(['partner_id', 'key']).doNothing())
    .returning('key')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function findIdempotencyKey(db: Db, partnerId: string, key: string): Promise<IdempotencyRecord | undefined> {
  return db.selectFrom('idempotency_keys').selectAll().where('partner_id', '=', partnerId).where('key', '=', key).executeTakeFirst();
}

/** Takes over a record that is unfinished and older than `staleBefore`, or expired; true when taken. */
export async function retakeIdempotencyKey(db: Db, record: IdempotencyRecord, staleBefore: Date, expiredBefore: Date): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ request_hash: record.request_hash, created_at: record.created_at, order_id: null })
    .where('partner_id', '=', record.partner_id)
    .where('key', '=', record.key)
    .where((eb) =>
      eb.or([
        eb.and([eb('order_id', 'is', null), eb('created_at', '<', staleBefore)]),
        eb('created_at', '<', expiredBefore),
      ]),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A request that failed validation leaves nothing behind. */
export async function releaseIdempotencyKey(db: Db, partnerId: string, key: string): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('partner_id', '=', partnerId)
    .where('key', '=', key)
    .where('order_id', 'is', null)
    .execute();
}

export async function purgeIdempotencyKeysBefore(db: Db, cutoff: Date): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('created_at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}
