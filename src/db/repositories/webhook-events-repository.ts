import { sql } from 'kysely';
import type { WebhookEventType } from '../../domain/webhook-events.js';
import { currentTraceParent } from '../../tracing/tracing.js';
import type { Db } from '../schema/index.js';

/** An event to record in the outbox, with its body already written. */
export interface NewWebhookEvent {
  /** The webhook-id: `msg_…`. */
  id: string;
  partner_id: string;
  type: WebhookEventType;
  order_id: string | null;
  payload: string;
}

/** An order's event: it goes to the endpoints of the order's mode only (docs/contract.md §10.2). */
export interface NewOrderWebhookEvent extends NewWebhookEvent {
  /** The order's `sandbox` flag. */
  sandbox: boolean;
}

/**
 * The outbox write (docs/contract.md §8), in one statement inside the caller's transaction (the order move
 * it reports): each event is stored with one pending delivery, due at `now`, per enabled endpoint
 * of its partner and of its order's mode subscribed to its type. An event no endpoint takes is
 * not stored at all, so a partner without endpoints costs one indexed lookup per move. Returns
 * the deliveries made.
 */
export async function insertWebhookEvents(db: Db, events: readonly NewOrderWebhookEvent[], now: Date): Promise<number> {
  if (events.length === 0) return 0;
  const result = await sql`
    with input as (
      select * from jsonb_to_recordset(${JSON.stringify(events)}::jsonb)
        as x(id text, partner_id uuid, type text, order_id uuid, payload text, sandbox boolean)
    ), targets as (
      select i.id as event_id, e.id as endpoint_id
      from input i
      join webhook_endpoints e on e.partner_id = i.partner_id and e.enabled
        and e.mode = case when i.sandbox then 'sandbox' else 'live' end
        and (e.events is null or e.events ? i.type)
    ), stored as (
      insert into webhook_events (id, partner_id, type, order_id, payload, trace_parent, created_at)
      select i.id, i.partner_id, i.type, i.order_id, i.payload, ${currentTraceParent()}, ${now}
      from input i
      where exists (select 1 from targets t where t.event_id = i.id)
      returning id
    )
    insert into webhook_deliveries (id, event_id, endpoint_id, status, attempts, next_attempt_at, created_at, updated_at)
    select gen_random_uuid(), t.event_id, t.endpoint_id, 'pending', 0, ${now}, ${now}, ${now}
    from targets t join stored s on s.id = t.event_id
  `.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** A ping (docs/contract.md §8): one event and its one delivery, to the endpoint given whatever it subscribes to. */
export async function insertPingEvent(db: Db, event: NewWebhookEvent, endpointId: string, now: Date): Promise<string> {
  await db
    .insertInto('webhook_events')
    .values({ ...event, trace_parent: currentTraceParent(), created_at: now })
    .execute();
  const delivery = await db
    .insertInto('webhook_deliveries')
    .values({
      id: sql<string>`gen_random_uuid()`,
      event_id: event.id,
      endpoint_id: endpointId,
      status: 'pending',
      attempts: 0,
      next_attempt_at: now,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return delivery.id;
}
