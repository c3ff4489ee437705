import { sql, type Kysely } from 'kysely';

/**
 * The signer's brakes (docs/contract.md §11.7): a pause per chain, or for every chain (`*`),
 * persisted so a restarted signer stays paused, and every pause and resume kept in
 * `signer_pause_events` with who and why. The signer's role reads the pauses and nothing of
 * their history.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table signer_pauses (
      chain text primary key check (chain ~ '^([A-Z0-9]{1,12}|\\*)$'),
      paused_by text not null,
      reason text,
      paused_at timestamptz not null
    )`.execute(db);
  await sql`
    create table signer_pause_events (
      id uuid primary key default gen_random_uuid(),
      chain text not null,
      action text not null check (action in ('pause', 'resume')),
      actor text not null,
      reason text,
      created_at timestamptz not null
    )`.execute(db);
  await sql`
    do $$
    begin
      if exists (select 1 from pg_roles where rolname = 'exchange_signer') then
        grant select on signer_pauses to exchange_signer;
      end if;
    end
    $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table signer_pause_events`.execute(db);
  await sql`drop table signer_pauses`.execute(db);
}
