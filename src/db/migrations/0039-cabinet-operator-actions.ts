import { sql, type Kysely } from 'kysely';

/**
 * What the operator does to a partner's cabinet people: a password reset link may
 * also clear the person's two-factor when it is used (`clear_totp`), and every operator action
 * on a person (two-factor cleared, sessions ended, person removed, reset link issued with or
 * without clearing two-factor), and the use of such a link, is recorded in
 * `cabinet_account_actions`. A row keeps the person's id and email with no foreign key: it
 * outlives the person it is about (a removal is recorded too). Append-only by use: nothing
 * updates or deletes a row.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table cabinet_password_resets add column clear_totp boolean not null default false`.execute(db);
  await sql`
    create table cabinet_account_actions (
      id uuid primary key default gen_random_uuid(),
      partner_id uuid not null references partners (id),
      person_id uuid not null,
      email text not null,
      action text not null check (action in ('clear_2fa', 'end_sessions', 'remove_person', 'password_reset_issued', 'password_reset_used')),
      actor text not null check (actor in ('operator', 'person')),
      -- The action clears the person's two-factor: clear_2fa; a reset link issued with clear_2fa
      -- (cleared when it is used), and that link's use.
      clear_2fa boolean not null,
      -- Sessions the action ended; null when it ends none.
      sessions_ended integer check (sessions_ended is null or sessions_ended >= 0),
      -- The asking client's address (the operator's, or the person's browser).
      ip text check (ip is null or length(ip) <= 64),
      at timestamptz not null
    )`.execute(db);
  await sql`create index cabinet_account_actions_partner_idx on cabinet_account_actions (partner_id, at desc)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table cabinet_account_actions`.execute(db);
  await sql`alter table cabinet_password_resets drop column clear_totp`.execute(db);
}
