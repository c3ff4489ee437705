import type { Insertable, Updateable } from 'kysely';
import type { Mode } from '../../domain/modes.js';
import type { Db } from '../schema/index.js';
import type { WebhookEndpointRow, WebhookEndpointTable } from '../schema/webhooks.js';

/** A partner's webhook endpoints (docs/contract.md §8). Secrets stay sealed here; services open them. */

/**
 * Whose endpoints a partner's request reaches: the partner's, of one mode (an API key's, docs/contract.md
 * §10.2) or of both (mode undefined: a cabinet person). The operator passes no scope.
 */
export interface EndpointScope {
  partnerId: string;
  mode?: Mode | undefined;
}

export async function insertWebhookEndpoint(db: Db, endpoint: Insertable<WebhookEndpointTable>): Promise<WebhookEndpointRow> {
  return db.insertInto('webhook_endpoints').values(endpoint).returningAll().executeTakeFirstOrThrow();
}

/**
 * Locks the partner's row until the end of the transaction `tx`, so the endpoint creations of
 * one partner count and insert one after the other (the cap holds under concurrent creates).
 */
export async function lockPartnerEndpoints(tx: Db, partnerId: string): Promise<void> {
  await tx.selectFrom('partners').select('id').where('id', '=', partnerId).forNoKeyUpdate().execute();
}

/** Endpoints per partner and mode at most: POST refuses one more. */
export async function countPartnerWebhookEndpoints(db: Db, partnerId: string, mode: Mode): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('partner_id', '=', partnerId)
    .where('mode', '=', mode)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The partner's endpoint at this URL that the operator disabled, if any (any mode). */
export async function findOperatorDisabledUrl(db: Db, partnerId: string, url: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select('id')
    .where('partner_id', '=', partnerId)
    .where('url', '=', url)
    .where('disabled_reason', '=', 'operator')
    .executeTakeFirst();
  return row?.id;
}

/** One endpoint; with a scope, only if it is in it. */
export async function findWebhookEndpoint(db: Db, id: string, scope?: EndpointScope): Promise<WebhookEndpointRow | undefined> {
  let query = db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id);
  if (scope !== undefined) query = query.where('partner_id', '=', scope.partnerId);
  if (scope?.mode !== undefined) query = query.where('mode', '=', scope.mode);
  return query.executeTakeFirst();
}

/** Endpoints oldest first; a scope's, or every partner's (the operator's listing). */
export async function listWebhookEndpoints(db: Db, filter: { scope?: EndpointScope | undefined; limit: number }): Promise<WebhookEndpointRow[]> {
  let query = db.selectFrom('webhook_endpoints').selectAll().orderBy('created_at').orderBy('id').limit(filter.limit);
  if (filter.scope !== undefined) query = query.where('partner_id', '=', filter.scope.partnerId);
  if (filter.scope?.mode !== undefined) query = query.where('mode', '=', filter.scope.mode);
  return query.execute();
}

/** Applies changes to one endpoint (in the scope, when one is given); undefined when there is none. */
export async function updateWebhookEndpoint(
  db: Db,
  id: string,
  changes: Updateable<WebhookEndpointTable>,
  scope?: EndpointScope,
): Promise<WebhookEndpointRow | undefined> {
  let query = db.updateTable('webhook_endpoints').set(changes).where('id', '=', id);
  if (scope !== undefined) query = query.where('partner_id', '=', scope.partnerId);
  if (scope?.mode !== undefined) query = query.where('mode', '=', scope.mode);
  return query.returningAll().executeTakeFirst();
}

/**
 * Deletes an endpoint of the scope with its deliveries, unless the operator disabled it (it
 * stays until the operator enables it). Returns what happened.
 */
export async function deleteWebhookEndpoint(db: Db, id: string, scope: EndpointScope): Promise<'deleted' | 'operator_disabled' | 'not_found'> {
  let query = db.deleteFrom('webhook_endpoints').where('id', '=', id).where('partner_id', '=', scope.partnerId);
  if (scope.mode !== undefined) query = query.where('mode', '=', scope.mode);
  const result = await query.where((eb) => eb.or([eb('disabled_reason', 'is', null), eb('disabled_reason', '!=', 'operator')])).executeTakeFirst();
  if (Number(result.numDeletedRows) > 0) return 'deleted';
  return (await findWebhookEndpoint(db, id, scope)) === undefined ? 'not_found' : 'operator_disabled';
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
