import { sql } from 'kysely';
import type { Db } from '../schema/index.js';
import type { NewPartner, PartnerRow, PartnerUpdate } from '../schema/partners.js';

export async function insertPartner(db: Db, partner: NewPartner): Promise<PartnerRow> {
  return db.insertInto('partners').values(partner).returningAll().executeTakeFirstOrThrow();
}

export async function findPartner(db: Db, id: string): Promise<PartnerRow | undefined> {
  return db.selectFrom('partners').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Oldest first, so pages stay stable while partners are added. */
export async function listPartners(db: Db, page: { limit: number; offset: number }): Promise<PartnerRow[]> {
  return db
    .selectFrom('partners')
    .selectAll()
    .orderBy('created_at')
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export async function updatePartner(db: Db, id: string, changes: PartnerUpdate): Promise<PartnerRow | undefined> {
  return db
    .updateTable('partners')
    .set({ ...changes, updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Whether some active partner lists `origin` among its cors_origins (docs/contract.md §10.9): a browser's
 * preflight carries no key, so it can only be answered for the origins some partner allows.
 */
export async function someActivePartnerAllowsOrigin(db: Db, origin: string): Promise<boolean> {
  const row = await db
    .selectFrom('partners')
    .select('id')
    .where('status', '=', 'active')
    .where(sql<boolean>`${origin} = any(cors_origins)`)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
