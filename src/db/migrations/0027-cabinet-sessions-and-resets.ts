import { sql, type Kysely } from 'kysely';

/**
 * The cabinet's account page (ASVS 3.3.4) and password reset:
 * - every session gains an `id`, so a page can name one to sign it out without ever showing its
 *   token's hash, and the browser's `user_agent` at sign-in, so the person can tell them apart;
 * - `cabinet_password_resets`: the operator's one-use, short-lived reset links (there is no
 *   e-mail sending: the operator passes the link on, as with an invitation). Only the token's
 *   SHA-256 is kept.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table cabinet_sessions add column id uuid not null default gen_random_uuid()`.execute(db);
  await sql`create unique index cabinet_sessions_id_idx on cabinet_sessions (id)`.execute(db);
  // Cut to 256 characters by the service; the check keeps a longer one from ever being stored.
  await sql`alter table cabinet_sessions add column user_agent text check (length(user_agent) <= 256)`.execute(db);

  await sql`
    create table cabinet_password_resets (
      id uuid primary key default gen_random_uuid(),
      user_id uuid not null references cabinet_users (id) on delete cascade,
      token_hash bytea not null unique check (length(token_hash) = 32),
      expires_at timestamptz not null,
      -- Set when the link set a password, or when a newer link or a password change voided it.
      used_at timestamptz,
      created_at timestamptz not null,
      check (expires_at > created_at)
    )`.execute(db);
  await sql`create index cabinet_password_resets_user_idx on cabinet_password_resets (user_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table cabinet_password_resets`.execute(db);
  await sql`alter table cabinet_sessions drop column user_agent`.execute(db);
  await sql`alter table cabinet_sessions drop column id`.execute(db);
}
