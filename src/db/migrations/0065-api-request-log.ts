import { sql, type Kysely } from 'kysely';

/**
 * The partner's request log (the cabinet's "Requests" page): one row per answered request made
 * with an API key — method, path (no query string), status, latency, error code, time — never
 * a header or a body. Written in batches off the request path (services/request-log.ts), kept
 * 7 days (the worker deletes older rows). No foreign keys: a row costs an append, nothing more.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table api_request_log (
      id bigint generated always as identity primary key,
      partner_id uuid not null,
      key_id text not null check (length(key_id) <= 64),
      sandbox boolean not null,
      method text not null check (length(method) <= 16),
      path text not null check (length(path) <= 512),
      status smallint not null,
      duration_ms integer not null check (duration_ms >= 0),
      error_code text check (error_code is null or length(error_code) <= 64),
      at timestamptz not null
    )`.execute(db);
  await sql`create index api_request_log_partner_idx on api_request_log (partner_id, sandbox, at desc, id desc)`.execute(db);
  await sql`create index api_request_log_at_idx on api_request_log (at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table api_request_log`.execute(db);
}
