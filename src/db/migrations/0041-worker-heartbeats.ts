import { sql, type Kysely } from 'kysely';

/**
 * Worker heartbeats: one row per worker loop (the lifecycle loop and the webhook
 * loop of every process that runs them: `npm run worker`, or an API process without WORKER=off),
 * written after each of its passes at most every few seconds. `/admin/v1/health` lists them with
 * their last tick and flags the stale ones, so a worker that stopped (or never started) is seen
 * instead of orders stalling in silence. A loop that stops gracefully stamps `stopped_at`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table worker_heartbeats (
      id uuid primary key,
      kind text not null check (kind in ('lifecycle', 'webhook')),
      -- 'separate' (npm run worker) or 'in-process' (inside an API process).
      mode text not null check (mode in ('separate', 'in-process')),
      host text not null check (length(host) <= 255),
      pid integer not null,
      started_at timestamptz not null,
      last_tick_at timestamptz not null,
      stopped_at timestamptz
    )`.execute(db);
  await sql`create index worker_heartbeats_last_tick_idx on worker_heartbeats (last_tick_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table worker_heartbeats`.execute(db);
}
