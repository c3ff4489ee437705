import { sql, type Kysely } from 'kysely';

/**
 * The webhook delivery log per attempt (docs/contract.md §8): 0017 kept only a delivery's last
 * attempt (last_* columns on webhook_deliveries), so a retried delivery's earlier answers were
 * lost. Each attempt is now a row of its own, written in the statement that records its outcome
 * on the delivery; the delivery keeps only its queue state (status, attempts, next attempt,
 * lease).
 *
 * - `endpoint_id` is copied from the delivery so the log (an endpoint's attempts, newest first)
 *   is one index range, whatever the number of the endpoint's deliveries.
 * - `attempt` is not unique per delivery: when a lease runs out while its attempt is still
 *   sending (a hung worker), the delivery is tried again with the same number and both attempts
 *   were made, so both are logged.
 * - Existing deliveries keep their last attempt as its row; its `outcome` is the delivery's
 *   status (a manual retry since then shows as pending, which the old columns could not tell).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table webhook_delivery_attempts (
      id bigint generated always as identity primary key,
      delivery_id uuid not null references webhook_deliveries (id) on delete cascade,
      endpoint_id uuid not null,
      attempt integer not null check (attempt >= 1),
      attempted_at timestamptz not null,
      status_code integer,
      duration_ms integer not null check (duration_ms >= 0),
      error text,
      -- The delivery as this attempt left it: delivered, pending (another attempt at next_attempt_at) or failed.
      outcome text not null check (outcome in ('pending', 'delivered', 'failed')),
      next_attempt_at timestamptz,
      check ((outcome = 'pending') = (next_attempt_at is not null))
    )
  `.execute(db);
  await sql`create index webhook_delivery_attempts_log_idx on webhook_delivery_attempts (endpoint_id, attempted_at desc, id desc)`.execute(db);
  // A delivery's latest attempt (ping and retry answers), and the cascade from its delivery.
  await sql`create index webhook_delivery_attempts_delivery_idx on webhook_delivery_attempts (delivery_id, id desc)`.execute(db);
  // Deliveries not attempted yet, which the log lists too (the queued ones), newest first.
  await sql`create index webhook_deliveries_queued_idx on webhook_deliveries (endpoint_id, created_at desc, id desc) where attempts = 0`.execute(db);
  await sql`
    insert into webhook_delivery_attempts
      (delivery_id, endpoint_id, attempt, attempted_at, status_code, duration_ms, error, outcome, next_attempt_at)
    select id, endpoint_id, attempts, last_attempt_at, last_status_code, coalesce(last_duration_ms, 0), last_error, status, next_attempt_at
    from webhook_deliveries where last_attempt_at is not null and attempts > 0
    order by last_attempt_at
  `.execute(db);
  // webhook_deliveries_endpoint_idx, the old log's, stays: deleting an endpoint cascades through it.
  for (const column of ['last_attempt_at', 'last_status_code', 'last_duration_ms', 'last_error']) {
    await sql.raw(`alter table webhook_deliveries drop column ${column}`).execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table webhook_deliveries
      add column last_attempt_at timestamptz,
      add column last_status_code integer,
      add column last_duration_ms integer,
      add column last_error text
  `.execute(db);
  await sql`
    update webhook_deliveries d set
      last_attempt_at = a.attempted_at, last_status_code = a.status_code, last_duration_ms = a.duration_ms, last_error = a.error
    from (select distinct on (delivery_id) * from webhook_delivery_attempts order by delivery_id, id desc) a
    where a.delivery_id = d.id
  `.execute(db);
  await sql`drop index webhook_deliveries_queued_idx`.execute(db);
  await sql`drop table webhook_delivery_attempts`.execute(db);
}
