import { sql } from 'kysely';
import type { ApiKeyRow, NewApiKey } from '../schema/api-keys.js';
import type { Db } from '../schema/index.js';
import type { PartnerRow } from '../schema/partners.js';

export async function insertApiKey(db: Db, key: NewApiKey): Promise<ApiKeyRow> {
  return db.insertInto('api_keys').values(key).returningAll().executeTakeFirstOrThrow();
}

/**
 * Inserts `key` unless its partner already has `cap` unrevoked keys of its kind (live or
 * sandbox): then nothing is written and the count is returned. The partner's row is locked
 * for the count and the insert, so concurrent creations are counted one after the other and
 * the cap holds; a partner that does not exist is left to the insert (its foreign key).
 */
export async function insertApiKeyCapped(db: Db, key: NewApiKey, cap: number): Promise<{ inserted: ApiKeyRow } | { refused: number }> {
  return db.transaction().execute(async (tx) => {
    await tx.selectFrom('partners').select('id').where('id', '=', key.partner_id).forNoKeyUpdate().execute();
    const { n } = await tx
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('partner_id', '=', key.partner_id)
      .where('sandbox', '=', key.sandbox ?? false)
      .where('scope', '=', key.scope ?? 'full')
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    if (Number(n) >= cap) return { refused: Number(n) };
    return { inserted: await insertApiKey(tx, key) };
  });
}

export type KeyListing = Pick<ApiKeyRow, 'key_id' | 'sandbox' | 'scope' | 'created_at' | 'revoked_at'>;

export async function listApiKeys(db: Db, partnerId: string): Promise<KeyListing[]> {
  return db
    .selectFrom('api_keys')
    .select(['key_id', 'sandbox', 'scope', 'created_at', 'revoked_at'])
    .where('partner_id', '=', partnerId)
    .orderBy('created_at')
    .execute();
}

/** Revokes once; revoking a revoked key keeps its first revocation time. */
export async function revokeApiKey(db: Db, keyId: string, at: Date): Promise<KeyListing | undefined> {
  await db.updateTable('api_keys').set({ revoked_at: at }).where('key_id', '=', keyId).where('revoked_at', 'is', null).execute();
  return db.selectFrom('api_keys').select(['key_id', 'sandbox', 'scope', 'created_at', 'revoked_at']).where('key_id', '=', keyId).executeTakeFirst();
}

export interface KeyWithPartner {
  key: Pick<ApiKeyRow, 'key_id' | 'secret_hash' | 'secret_ciphertext' | 'revoked_at' | 'sandbox' | 'scope'>;
  partner: PartnerRow;
}

/** One indexed lookup per authenticated request: the key and its partner together. */
export async function findKeyWithPartner(db: Db, keyId: string): Promise<KeyWithPartner | undefined> {
  const row = await db
    .selectFrom('api_keys as k')
    .innerJoin('partners as p', 'p.id', 'k.partner_id')
    .select([
      'k.key_id', 'k.secret_hash', 'k.secret_ciphertext', 'k.revoked_at', 'k.sandbox', 'k.scope',
      'p.id', 'p.name', 'p.status', 'p.markup_bps', 'p.rate_limit_per_minute', 'p.max_open_orders', 'p.cors_origins', 'p.created_at', 'p.updated_at',
    ])
    .where('k.key_id', '=', keyId)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  const { key_id, secret_hash, secret_ciphertext, revoked_at, sandbox, scope, ...partner } = row;
  return { key: { key_id, secret_hash, secret_ciphertext, revoked_at, sandbox, scope }, partner };
}

/** A key as the partner's cabinet lists it: no secret material. */
export type CabinetKeyListing = Pick<ApiKeyRow, 'key_id' | 'sandbox' | 'scope' | 'label' | 'created_at' | 'revoked_at'> & { last_used_at: Date | null };

/** The partner's keys, newest first, revoked ones after the active ones, with their last use. */
export async function listPartnerKeysForCabinet(db: Db, partnerId: string): Promise<CabinetKeyListing[]> {
  return db
    .selectFrom('api_keys as k')
    .leftJoin('api_key_uses as u', 'u.key_id', 'k.key_id')
    .select(['k.key_id', 'k.sandbox', 'k.scope', 'k.label', 'k.created_at', 'k.revoked_at', 'u.last_used_at'])
    .where('k.partner_id', '=', partnerId)
    .orderBy((eb) => eb('k.revoked_at', 'is', null), 'desc')
    .orderBy('k.created_at', 'desc')
    .orderBy('k.key_id')
    .execute();
}

/**
 * Revokes a key only if it belongs to `partnerId` (the cabinet's revoke: another partner's key
 * id is not found, never revoked). Returns whether the key is the partner's.
 */
export async function revokePartnerApiKey(db: Db, partnerId: string, keyId: string, at: Date): Promise<boolean> {
  await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('key_id', '=', keyId)
    .where('partner_id', '=', partnerId)
    .where('revoked_at', 'is', null)
    .execute();
  const row = await db.selectFrom('api_keys').select('key_id').where('key_id', '=', keyId).where('partner_id', '=', partnerId).executeTakeFirst();
  return row !== undefined;
}

/** Records that `keyIds` were used by `at` (api_key_uses): a last use moves forward only, never back. */
export async function recordKeyUses(db: Db, keyIds: readonly string[], at: Date): Promise<void> {
  if (keyIds.length === 0) return;
  await db
    .insertInto('api_key_uses')
    .values(keyIds.map((key_id) => ({ key_id, last_used_at: at })))
    .onConflict((oc) => oc.column('key_id').doUpdateSet({ last_used_at: sql<Date>`greatest(api_key_uses.last_used_at, excluded.last_used_at)` }))
    .execute();
}
