import type { Db } from '../schema/index.js';

/** The low-pool alert thresholds an operator set, by chain (address_pool_alerts). */
export async function listPoolAlerts(db: Db): Promise<Map<string, number>> {
  const rows = await db.selectFrom('address_pool_alerts').select(['chain', 'low_at']).execute();
  return new Map(rows.map((row) => [row.chain, row.low_at]));
}

export async function findPoolAlert(db: Db, chain: string): Promise<number | undefined> {
  return (await db.selectFrom('address_pool_alerts').select('low_at').where('chain', '=', chain).executeTakeFirst())?.low_at;
}

/** Sets the chain's threshold (`lowAt`), or removes it (null: the default applies again). */
export async function setPoolAlert(db: Db, chain: string, lowAt: number | null, now: Date): Promise<void> {
  if (lowAt === null) {
    await db.deleteFrom('address_pool_alerts').where('chain', '=', chain).execute();
    return;
  }
  await db
    .insertInto('address_pool_alerts')
    .values({ chain, low_at: lowAt, updated_at: now })
    .onConflict((conflict) => conflict.column('chain').doUpdateSet({ low_at: lowAt, updated_at: now }))
    .execute();
}
