import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../schema/index.js';
import type { WebhookEndpointRow, WebhookEndpointTable } from '../schema/webhooks.js';

/** A partner's webhook endpoints (DESIGN §8). Secrets stay sealed here; services open them. */

export async function insertWebhookEndpoint(db: Db, endpoint: Insertable<WebhookEndpointTable>): Promise<WebhookEndpointRow> {
  return db.insertInto('webhook_endpoints').values(endpoint).returningAll().executeTakeFirstOrThrow();
}

/** Endpoints per partner at most: POST refuses one more. */
export async function countPartnerWebhookEndpoints(db: Db, partnerId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('partner_id', '=', partnerId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** One endpoint; with `partnerId`, only if it is that partner's. */
export async function findWebhookEndpoint(db: Db, id: string, partnerId?: string): Promise<WebhookEndpointRow | undefined> {
  let query = db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id);
  if (partnerId !== undefined) query = query.where('partner_id', '=', partnerId);
  return query.executeTakeFirst();
}

/** Endpoints oldest first; a partner's, or every partner's (the operator's listing). */
export async function listWebhookEndpoints(db: Db, filter: { partnerId?: string; limit: number }): Promise<WebhookEndpointRow[]> {
  let query = db.selectFrom('webhook_endpoints').selectAll().orderBy('created_at').orderBy('id').limit(filter.limit);
  if (filter.partnerId !== undefined) query = query.where('partner_id', '=', filter.partnerId);
  return query.execute();
}

/** Applies changes to one endpoint (a partner's, when `partnerId` is given); undefined when there is none. */
export async function updateWebhookEndpoint(
  db: Db,
  id: string,
  changes: Updateable<WebhookEndpointTable>,
  partnerId?: string,
): Promise<WebhookEndpointRow | undefined> {
  let query = db.updateTable('webhook_endpoints').set(changes).where('id', '=', id);
  if (partnerId !== undefined) query = query.where('partner_id', '=', partnerId);
  return query.returningAll().executeTakeFirst();
}

/** Deletes a partner's endpoint with its deliveries; false when there was none. */
export async function deleteWebhookEndpoint(db: Db, id: string, partnerId: string): Promise<boolean> {
  const result = await db.deleteFrom('webhook_endpoints').where('id', '=', id).where('partner_id', '=', partnerId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** After a delivered attempt: the endpoint is no longer failing. */
export async function clearWebhookEndpointFailing(db: Db, id: string): Promise<void> {
  await db.updateTable('webhook_endpoints').set({ failing_since: null }).where('id', '=', id).where('failing_since', 'is not', null).execute();
}

/**
 * After a failed attempt: marks the endpoint failing from `now` unless it already was; returns
 * since when it has been failing (null when it is gone or disabled meanwhile).
 */
export async function markWebhookEndpointFailing(db: Db, id: string, now: Date): Promise<Date | null> {
  const row = await db
    .updateTable('webhook_endpoints')
    .set((eb) => ({ failing_since: eb.fn.coalesce('failing_since', eb.val(now)) }))
    .where('id', '=', id)
    .where('enabled', '=', true)
    .returning('failing_since')
    .executeTakeFirst();
  return row?.failing_since ?? null;
}

/** Disables an endpoint that has failed too long (unless someone disabled it meanwhile). */
export async function disableFailingWebhookEndpoint(db: Db, id: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoints')
    .set({ enabled: false, disabled_reason: 'failing', updated_at: now })
    .where('id', '=', id)
    .where('enabled', '=', true)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
