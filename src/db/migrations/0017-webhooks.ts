import { sql, type Kysely } from 'kysely';

/**
 * Webhooks (docs/contract.md §8): a partner's endpoints, the outbox of events (written in the
 * transaction of the order move they report) and one delivery per event and endpoint, which the
 * webhook workers lease with FOR UPDATE SKIP LOCKED.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table webhook_endpoints (
      id uuid primary key,
      partner_id uuid not null references partners (id) on delete cascade,
      url text not null check (length(url) between 1 and 2000),
      description text check (length(description) <= 200),
      -- A JSON array of event types; null subscribes to every type.
      events jsonb,
      enabled boolean not null default true,
      disabled_reason text check (disabled_reason in ('partner', 'operator', 'failing')),
      secret bytea not null,
      previous_secret bytea,
      previous_secret_expires_at timestamptz,
      -- The first failed attempt since the last delivered one; null while deliveries succeed.
      failing_since timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      check (enabled = (disabled_reason is null)),
      check ((previous_secret is null) = (previous_secret_expires_at is null))
    )
  `.execute(db);
  await sql`create index webhook_endpoints_partner_idx on webhook_endpoints (partner_id, created_at)`.execute(db);

  await sql`
    create table webhook_events (
      id text primary key,
      partner_id uuid not null references partners (id) on delete cascade,
      type text not null check (type in ('order.created', 'order.status_changed', 'ping')),
      order_id uuid references orders (id) on delete cascade,
      -- The body as sent, byte for byte on every attempt.
      payload text not null,
      created_at timestamptz not null
    )
  `.execute(db);

  await sql`
    create table webhook_deliveries (
      id uuid primary key,
      event_id text not null references webhook_events (id) on delete cascade,
      endpoint_id uuid not null references webhook_endpoints (id) on delete cascade,
      status text not null check (status in ('pending', 'delivered', 'failed')),
      attempts integer not null default 0 check (attempts >= 0),
      next_attempt_at timestamptz,
      locked_until timestamptz,
      last_attempt_at timestamptz,
      last_status_code integer,
      last_duration_ms integer,
      last_error text,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      check ((status = 'pending') = (next_attempt_at is not null))
    )
  `.execute(db);
  // The workers' queue: due pending deliveries, oldest first.
  await sql`create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at) where status = 'pending'`.execute(db);
  // Leases held (in flight): the per-endpoint concurrency cap counts them.
  await sql`create index webhook_deliveries_leased_idx on webhook_deliveries (endpoint_id) where locked_until is not null`.execute(db);
  // An endpoint's delivery log, newest first.
  await sql`create index webhook_deliveries_endpoint_idx on webhook_deliveries (endpoint_id, created_at desc, id desc)`.execute(db);
  await sql`create index webhook_deliveries_event_idx on webhook_deliveries (event_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table webhook_deliveries`.execute(db);
  await sql`drop table webhook_events`.execute(db);
  await sql`drop table webhook_endpoints`.execute(db);
}
