import { sql } from 'kysely';
import type { WebhookEventType } from '../../domain/webhook-events.js';
import type { Db } from '../schema/index.js';
import type { WebhookDeliveryStatus } from '../schema/webhooks.js';
import type { EndpointScope } from './webhook-endpoints-repository.js';

/**
 * The webhook deliveries as the workers' queue (leases, outcomes) and as the partners' and the
 * operator's delivery log (docs/contract.md §8).
 */

/** A leased delivery with all an attempt needs: the event's body and the endpoint's URL and sealed secrets. */
export interface ClaimedDelivery {
  id: string;
  event_id: string;
  endpoint_id: string;
  /** Attempts made before this one. */
  attempts: number;
  type: WebhookEventType;
  payload: string;
  url: string;
  secret: Buffer;
  previous_secret: Buffer | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
  /** The event's stored trace context (tracing on): the attempt continues that trace. */
  trace_parent: string | null;
  /** The lease this claim holds: its outcome is recorded only while the row still carries it. */
  lease_until: Date;
}

export interface ClaimLimits {
  /** Deliveries to lease at most. */
  limit: number;
  /** Leases one endpoint may hold at once, across every worker. */
  perEndpoint: number;
}

/**
 * Leases due deliveries of enabled endpoints until `leaseUntil`, oldest due first, in one
 * transaction: FOR UPDATE SKIP LOCKED, so any number of workers claim side by side and never
 * the same row; an endpoint that already holds `perEndpoint` live leases (a slow or hanging
 * receiver) gets none, and one claim gives no endpoint more than it has room for, so one
 * partner's backlog never takes the slots the others' deliveries need.
 *
 * The cap holds across workers claiming at the same moment: the claim also locks the endpoint
 * rows of its candidates (FOR NO KEY UPDATE SKIP LOCKED: an endpoint another claim is leasing
 * for is skipped, not waited for; order moves that add deliveries only take FOR KEY SHARE, so
 * they never wait), and counts the endpoints' live leases again after that lock, in a statement
 * that sees every claim committed before it. The first count, before any lock, only keeps the
 * endpoints already full out of the candidates.
 */
export async function claimDueDeliveries(db: Db, now: Date, leaseUntil: Date, limits: ClaimLimits): Promise<ClaimedDelivery[]> {
  return db.transaction().execute(async (tx) => {
    const saturated = [...(await liveLeases(tx, now))].filter(([, n]) => n >= limits.perEndpoint).map(([id]) => id);
    const candidates = await sql<Omit<ClaimedDelivery, 'lease_until'>>`
      select d.id, d.event_id, d.endpoint_id, d.attempts, ev.type, ev.payload, ev.trace_parent,
        e.url, e.secret, e.previous_secret, e.previous_secret_expires_at, e.failing_since
      from webhook_deliveries d
      join webhook_endpoints e on e.id = d.endpoint_id
      join webhook_events ev on ev.id = d.event_id
      where d.status = 'pending' and d.next_attempt_at <= ${now}
        and (d.locked_until is null or d.locked_until <= ${now})
        and e.enabled
        ${saturated.length > 0 ? sql`and d.endpoint_id <> all(${saturated}::uuid[])` : sql``}
      order by d.next_attempt_at
      limit ${limits.limit}
      for update of d skip locked
      for no key update of e skip locked
    `.execute(tx);
    if (candidates.rows.length === 0) return [];
    const inFlight = await liveLeases(tx, now, [...new Set(candidates.rows.map((row) => row.endpoint_id))]);
    const chosen: ClaimedDelivery[] = [];
    for (const row of candidates.rows) {
      const held = inFlight.get(row.endpoint_id) ?? 0;
      if (held >= limits.perEndpoint) continue;
      inFlight.set(row.endpoint_id, held + 1);
      chosen.push({ ...row, lease_until: leaseUntil });
    }
    if (chosen.length > 0) {
      await tx
        .updateTable('webhook_deliveries')
        .set({ locked_until: leaseUntil })
        .where('id', 'in', chosen.map((row) => row.id))
        .execute();
    }
    return chosen;
  });
}

/** Live leases (attempts in flight) per endpoint: of every endpoint, or of those given. */
async function liveLeases(tx: Db, now: Date, endpointIds?: readonly string[]): Promise<Map<string, number>> {
  const busy = await sql<{ endpoint_id: string; n: number }>`
    select endpoint_id, count(*)::int as n from webhook_deliveries
    where locked_until > ${now} ${endpointIds === undefined ? sql`` : sql`and endpoint_id = any(${endpointIds}::uuid[])`}
    group by endpoint_id
  `.execute(tx);
  return new Map(busy.rows.map((row) => [row.endpoint_id, Number(row.n)]));
}

/** One attempt, as the worker records it. */
export interface AttemptRecord {
  /** 1 for the first attempt. */
  attempt: number;
  /** When the request was sent (its webhook-timestamp). */
  startedAt: Date;
  /** When its outcome was known. */
  at: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** The delivery after it: delivered, pending (tried again at `nextAttemptAt`) or failed for good. */
  outcome: WebhookDeliveryStatus;
  /** Set exactly when the outcome is pending. */
  nextAttemptAt: Date | null;
  /** The receiver's answer headers and first bytes of its body (migration 0073); null without an answer. */
  responseHeaders?: Record<string, string> | null;
  responseBody?: Buffer | null;
}

/**
 * Records an attempt: the delivery's new state (status, attempts made, next attempt, lease
 * released) and the attempt's row in its log, in one statement, so the log and the queue never
 * disagree. Only while the delivery still holds this attempt's lease (`leaseUntil`, a claim's
 * token): an attempt that outlived its lease (a stalled worker) was made again by another claim,
 * whose outcome stands. False when the lease was lost and nothing was recorded.
 */
export async function recordDeliveryAttempt(db: Db, deliveryId: string, leaseUntil: Date, record: AttemptRecord): Promise<boolean> {
  const result = await sql`
    with delivery as (
      update webhook_deliveries
      set status = ${record.outcome}, attempts = ${record.attempt}, next_attempt_at = ${record.nextAttemptAt},
        locked_until = null, updated_at = ${record.at}
      where id = ${deliveryId} and locked_until = ${leaseUntil}
      returning id, endpoint_id
    )
    insert into webhook_delivery_attempts
      (delivery_id, endpoint_id, attempt, attempted_at, status_code, duration_ms, error, outcome, next_attempt_at, response_headers, response_body)
    select id, endpoint_id, ${record.attempt}::integer, ${record.startedAt}::timestamptz, ${record.statusCode}::integer,
      ${record.durationMs}::integer, ${record.error}::text, ${record.outcome}::text, ${record.nextAttemptAt}::timestamptz,
      ${record.responseHeaders == null ? null : JSON.stringify(record.responseHeaders)}::jsonb, ${record.responseBody ?? null}::bytea
    from delivery
  `.execute(db);
  return (result.numAffectedRows ?? 0n) > 0n;
}

/**
 * A line of the delivery log: one attempt of a delivery (`attempt` ≥ 1, its answer, and the
 * delivery as it left it), or a delivery not attempted yet (`attempt` 0, pending). Ping and
 * retry answer the delivery itself in the same shape: its current status, the number of attempts
 * made and the last one's answer.
 */
export interface DeliveryLogRow {
  /** The delivery: what a retry takes. */
  id: string;
  event_id: string;
  event_type: WebhookEventType;
  endpoint_id: string;
  status: WebhookDeliveryStatus;
  attempt: number;
  status_code: number | null;
  /** Milliseconds; null when not attempted. */
  duration_ms: number | null;
  error: string | null;
  attempted_at: Date | null;
  next_attempt_at: Date | null;
  created_at: Date;
}

/**
 * An endpoint's delivery log, newest first, at most `limit` lines (optionally of one status):
 * every attempt (by its time), and the deliveries not attempted yet (by their creation). Each
 * part is read newest first from its own index and cut at `limit` before the two are merged.
 */
export async function listEndpointDeliveries(
  db: Db,
  endpointId: string,
  filter: { status?: WebhookDeliveryStatus; limit: number },
): Promise<DeliveryLogRow[]> {
  const attemptStatus = filter.status === undefined ? sql`` : sql`and a.outcome = ${filter.status}`;
  // Not attempted means pending: asked for another status, that part is empty.
  const queued =
    filter.status === undefined || filter.status === 'pending'
      ? sql`
        union all
        select * from (
          select d.id, d.event_id, ev.type as event_type, d.endpoint_id, d.status, 0 as attempt,
            null::integer as status_code, null::integer as duration_ms, null::text as error,
            null::timestamptz as attempted_at, d.next_attempt_at, d.created_at, d.created_at as at, null::bigint as seq
          from webhook_deliveries d
          join webhook_events ev on ev.id = d.event_id
          where d.endpoint_id = ${endpointId} and d.attempts = 0
          order by d.created_at desc, d.id desc
          limit ${filter.limit}
        ) queued`
      : sql``;
  const result = await sql<DeliveryLogRow & { at: Date; seq: number | null }>`
    select * from (
      select a.delivery_id as id, d.event_id, ev.type as event_type, a.endpoint_id, a.outcome as status, a.attempt,
        a.status_code, a.duration_ms, a.error, a.attempted_at, a.next_attempt_at, d.created_at, a.attempted_at as at, a.id as seq
      from webhook_delivery_attempts a
      join webhook_deliveries d on d.id = a.delivery_id
      join webhook_events ev on ev.id = d.event_id
      where a.endpoint_id = ${endpointId} ${attemptStatus}
      order by a.attempted_at desc, a.id desc
      limit ${filter.limit}
    ) attempts
    ${queued}
    order by at desc, seq desc nulls first, id desc
    limit ${filter.limit}
  `.execute(db);
  return result.rows.map(({ at: _at, seq: _seq, ...row }) => row);
}

/**
 * A manual retry: the delivery (of an endpoint in the scope, when one is given) is due
 * again at `now`, whatever its status; the same event, so the same webhook-id. A delivered or
 * failed one gets one more attempt; a pending one keeps its schedule. Undefined when there is none.
 */
export async function retryDelivery(db: Db, id: string, now: Date, scope?: EndpointScope): Promise<DeliveryLogRow | undefined> {
  let query = db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now, updated_at: now })
    .where('id', '=', id);
  if (scope !== undefined) {
    query = query.where('endpoint_id', 'in', (eb) => {
      const endpoints = eb.selectFrom('webhook_endpoints').select('id').where('partner_id', '=', scope.partnerId);
      return scope.mode === undefined ? endpoints : endpoints.where('mode', '=', scope.mode);
    });
  }
  const row = await query.returning('id').executeTakeFirst();
  if (row === undefined) return undefined;
  return findDelivery(db, row.id);
}

/** A delivery as it is now: its status, the attempts made, and its last attempt's answer. */
export async function findDelivery(db: Db, id: string): Promise<DeliveryLogRow | undefined> {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as ev', 'ev.id', 'd.event_id')
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('webhook_delivery_attempts')
          .select(['status_code', 'duration_ms', 'error', 'attempted_at'])
          .whereRef('delivery_id', '=', 'd.id')
          .orderBy('id', 'desc')
          .limit(1)
          .as('a'),
      (join) => join.onTrue(),
    )
    .select([
      'd.id',
      'd.event_id',
      'ev.type as event_type',
      'd.endpoint_id',
      'd.status',
      'd.attempts as attempt',
      'a.status_code',
      'a.duration_ms',
      'a.error',
      'a.attempted_at',
      'd.next_attempt_at',
      'd.created_at',
    ])
    .where('d.id', '=', id)
    .executeTakeFirst();
}

/**
 * The queue as the metrics show it: deliveries due now, how late the most overdue is, and those
 * waiting to retry. Only enabled endpoints' deliveries are the workers' queue: those of a
 * disabled endpoint wait, untouched, until it is enabled again, and counting them would make
 * the queue look stuck (its oldest delivery ever older) while the workers keep up.
 */
export interface WebhookQueueStats {
  due: number;
  /** The earliest next_attempt_at among due deliveries; null when none is due. */
  oldestDueAt: Date | null;
  retrying: number;
}

export async function webhookQueueStats(db: Db, now: Date): Promise<WebhookQueueStats> {
  const row = await sql<{ due: number; oldest: Date | null; retrying: number }>`
    select
      count(*) filter (where d.next_attempt_at <= ${now})::int as due,
      min(d.next_attempt_at) filter (where d.next_attempt_at <= ${now}) as oldest,
      count(*) filter (where d.next_attempt_at > ${now})::int as retrying
    from webhook_deliveries d
    join webhook_endpoints e on e.id = d.endpoint_id and e.enabled
    where d.status = 'pending'
  `.execute(db);
  const stats = row.rows[0];
  return { due: Number(stats?.due ?? 0), oldestDueAt: stats?.oldest ?? null, retrying: Number(stats?.retrying ?? 0) };
}

/** Events of the partner's by id (the cabinet's delivery log: each line's request body and order); another partner's are left out. */
export async function findPartnerWebhookEvents(db: Db, partnerId: string, ids: readonly string[]): Promise<Array<{ id: string; payload: string; order_id: string | null }>> {
  if (ids.length === 0) return [];
  return db.selectFrom('webhook_events').select(['id', 'payload', 'order_id']).where('partner_id', '=', partnerId).where('id', 'in', [...ids]).execute();
}

/** One attempt's answer as the delivery log shows it (migration 0073). */
export interface AttemptResponse {
  delivery_id: string;
  attempt: number;
  response_headers: Record<string, string> | null;
  response_body: Buffer | null;
}

/** The answers of the endpoint's attempts of these deliveries (the lines a page shows), by delivery and attempt. */
export async function findAttemptResponses(db: Db, endpointId: string, deliveryIds: readonly string[]): Promise<AttemptResponse[]> {
  if (deliveryIds.length === 0) return [];
  return db
    .selectFrom('webhook_delivery_attempts')
    .select(['delivery_id', 'attempt', 'response_headers', 'response_body'])
    .where('endpoint_id', '=', endpointId)
    .where('delivery_id', 'in', [...deliveryIds])
    .execute();
}
