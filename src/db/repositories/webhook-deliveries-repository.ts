import { sql } from 'kysely';
import type { WebhookEventType } from '../../domain/webhook-events.js';
import type { Db } from '../schema/index.js';
import type { WebhookDeliveryStatus } from '../schema/webhooks.js';

/**
 * The webhook deliveries as the workers' queue (leases, outcomes) and as the partners' and the
 * operator's delivery log (DESIGN §8).
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
 */
export async function claimDueDeliveries(db: Db, now: Date, leaseUntil: Date, limits: ClaimLimits): Promise<ClaimedDelivery[]> {
  return db.transaction().execute(async (tx) => {
    const busy = await sql<{ endpoint_id: string; n: number }>`
      select endpoint_id, count(*)::int as n from webhook_deliveries
      where locked_until > ${now} group by endpoint_id
    `.execute(tx);
    const inFlight = new Map(busy.rows.map((row) => [row.endpoint_id, Number(row.n)]));
    const saturated = [...inFlight].filter(([, n]) => n >= limits.perEndpoint).map(([id]) => id);
    const candidates = await sql<ClaimedDelivery>`
      select d.id, d.event_id, d.endpoint_id, d.attempts, ev.type, ev.payload,
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
    `.execute(tx);
    const chosen: ClaimedDelivery[] = [];
    for (const row of candidates.rows) {
      const held = inFlight.get(row.endpoint_id) ?? 0;
      if (held >= limits.perEndpoint) continue;
      inFlight.set(row.endpoint_id, held + 1);
      chosen.push(row);
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

/** One attempt's outcome, as the log shows it. */
export interface AttemptRecord {
  at: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

/** Records a delivered attempt and releases the lease. */
export async function markDeliveryDelivered(db: Db, id: string, attemptsMade: number, attempt: AttemptRecord): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({
      status: 'delivered',
      attempts: attemptsMade,
      next_attempt_at: null,
      locked_until: null,
      ...attemptColumns(attempt),
    })
    .where('id', '=', id)
    .execute();
}

/**
 * Records a failed attempt and releases the lease: the delivery waits for `nextAttemptAt`, or
 * has failed for good when that is null.
 */
export async function markDeliveryFailed(
  db: Db,
  id: string,
  attemptsMade: number,
  attempt: AttemptRecord,
  nextAttemptAt: Date | null,
): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({
      status: nextAttemptAt === null ? 'failed' : 'pending',
      attempts: attemptsMade,
      next_attempt_at: nextAttemptAt,
      locked_until: null,
      ...attemptColumns(attempt),
    })
    .where('id', '=', id)
    .execute();
}

function attemptColumns(attempt: AttemptRecord) {
  return {
    last_attempt_at: attempt.at,
    last_status_code: attempt.statusCode,
    last_duration_ms: attempt.durationMs,
    last_error: attempt.error,
    updated_at: attempt.at,
  };
}

/** A delivery as its log shows it. */
export interface DeliveryLogRow {
  id: string;
  event_id: string;
  event_type: WebhookEventType;
  endpoint_id: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  last_status_code: number | null;
  last_duration_ms: number | null;
  last_error: string | null;
  created_at: Date;
}

/** An endpoint's deliveries, newest first (optionally of one status). */
export async function listEndpointDeliveries(
  db: Db,
  endpointId: string,
  filter: { status?: WebhookDeliveryStatus; limit: number },
): Promise<DeliveryLogRow[]> {
  let query = db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as ev', 'ev.id', 'd.event_id')
    .select([
      'd.id',
      'd.event_id',
      'ev.type as event_type',
      'd.endpoint_id',
      'd.status',
      'd.attempts',
      'd.next_attempt_at',
      'd.last_attempt_at',
      'd.last_status_code',
      'd.last_duration_ms',
      'd.last_error',
      'd.created_at',
    ])
    .where('d.endpoint_id', '=', endpointId)
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(filter.limit);
  if (filter.status !== undefined) query = query.where('d.status', '=', filter.status);
  return query.execute();
}

/**
 * A manual retry: the delivery (of the partner's endpoint, when `partnerId` is given) is due
 * again at `now`, whatever its status; the same event, so the same webhook-id. A delivered or
 * failed one gets one more attempt; a pending one keeps its schedule. Undefined when there is none.
 */
export async function retryDelivery(db: Db, id: string, now: Date, partnerId?: string): Promise<DeliveryLogRow | undefined> {
  let query = db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now, updated_at: now })
    .where('id', '=', id);
  if (partnerId !== undefined) {
    query = query.where('endpoint_id', 'in', (eb) => eb.selectFrom('webhook_endpoints').select('id').where('partner_id', '=', partnerId));
  }
  const row = await query.returning('id').executeTakeFirst();
  if (row === undefined) return undefined;
  return findDelivery(db, row.id);
}

export async function findDelivery(db: Db, id: string): Promise<DeliveryLogRow | undefined> {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as ev', 'ev.id', 'd.event_id')
    .select([
      'd.id',
      'd.event_id',
      'ev.type as event_type',
      'd.endpoint_id',
      'd.status',
      'd.attempts',
      'd.next_attempt_at',
      'd.last_attempt_at',
      'd.last_status_code',
      'd.last_duration_ms',
      'd.last_error',
      'd.created_at',
    ])
    .where('d.id', '=', id)
    .executeTakeFirst();
}

/** The queue as the metrics show it: deliveries due now, how late the most overdue is, and those waiting to retry. */
export interface WebhookQueueStats {
  due: number;
  /** The earliest next_attempt_at among due deliveries; null when none is due. */
  oldestDueAt: Date | null;
  retrying: number;
}

export async function webhookQueueStats(db: Db, now: Date): Promise<WebhookQueueStats> {
  const row = await sql<{ due: number; oldest: Date | null; retrying: number }>`
    select
      count(*) filter (where next_attempt_at <= ${now})::int as due,
      min(next_attempt_at) filter (where next_attempt_at <= ${now}) as oldest,
      count(*) filter (where next_attempt_at > ${now})::int as retrying
    from webhook_deliveries where status = 'pending'
  `.execute(db);
  const stats = row.rows[0];
  return { due: Number(stats?.due ?? 0), oldestDueAt: stats?.oldest ?? null, retrying: Number(stats?.retrying ?? 0) };
}
