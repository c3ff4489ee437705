import type { Db } from '../schema/index.js';

/**
 * The per-partner cap on open orders (issue 12, pool drain). The partner's row is locked
 * (FOR NO KEY UPDATE: the orders' foreign-key checks still pass) from the final count to the
 * order transaction's commit, so two concurrent creations of one partner count one after the
 * other and the cap holds exactly; other partners are not held up.
 */
export async function lockPartnerForNewOrder(db: Db, partnerId: string): Promise<void> {
  await db.selectFrom('partners').select('id').where('id', '=', partnerId).forNoKeyUpdate().executeTakeFirst();
}

/** Orders of the partner still waiting for a deposit at `now` (past expires_at reads as expired). */
export async function countOpenOrders(db: Db, partnerId: string, now: Date): Promise<number> {
  const row = await db
    .selectFrom('orders')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('partner_id', '=', partnerId)
    .where('status', '=', 'waiting_deposit')
    .where('expires_at', '>', now)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
