import { sql, type Kysely } from 'kysely';

/**
 * The partner cabinet's accounts (docs/contract.md §9): people of a partner (several per
 * partner), the operator's one-use invitations that create them, their sessions and their
 * two-factor recovery codes. Every secret a browser or an email carries (invitation token,
 * session token, recovery code) is stored only as its SHA-256, so a read of these tables gives
 * nobody a way in; the TOTP secret must be read back to check codes, so it is sealed under
 * SECRETS_KEY like API secrets.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table cabinet_users (
      id uuid primary key default gen_random_uuid(),
      partner_id uuid not null references partners (id),
      -- Stored lowercased: sign-in matches it whatever case is typed.
      email text not null check (email = lower(email) and length(email) between 3 and 254 and email like '%_@_%'),
      -- argon2id PHC string ($argon2id$v=19$m=…,t=…,p=…$salt$hash).
      password_hash text not null check (password_hash like '$argon2id$%'),
      totp_secret_sealed bytea,
      totp_enabled_at timestamptz,
      -- The 30-second step of the last code accepted: a code is good once (no replay).
      totp_last_step bigint,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      -- Two-factor is on only with a secret to check codes against.
      check (totp_enabled_at is null or totp_secret_sealed is not null)
    )`.execute(db);
  await sql`create unique index cabinet_users_email_idx on cabinet_users (email)`.execute(db);
  await sql`create index cabinet_users_partner_idx on cabinet_users (partner_id)`.execute(db);

  await sql`
    create table cabinet_invitations (
      id uuid primary key default gen_random_uuid(),
      partner_id uuid not null references partners (id),
      email text not null check (email = lower(email) and length(email) between 3 and 254),
      token_hash bytea not null unique check (length(token_hash) = 32),
      expires_at timestamptz not null,
      used_at timestamptz,
      created_at timestamptz not null default now(),
      check (expires_at > created_at)
    )`.execute(db);

  await sql`
    create table cabinet_sessions (
      token_hash bytea primary key check (length(token_hash) = 32),
      user_id uuid not null references cabinet_users (id) on delete cascade,
      partner_id uuid not null references partners (id),
      -- Signed in with the password, the second factor still to come: such a session opens
      -- nothing but the code page.
      second_factor_pending boolean not null default false,
      created_at timestamptz not null,
      last_seen_at timestamptz not null,
      -- The absolute end, whatever the activity.
      expires_at timestamptz not null,
      check (expires_at > created_at)
    )`.execute(db);
  await sql`create index cabinet_sessions_user_idx on cabinet_sessions (user_id)`.execute(db);
  await sql`create index cabinet_sessions_expires_idx on cabinet_sessions (expires_at)`.execute(db);

  await sql`
    create table cabinet_recovery_codes (
      user_id uuid not null references cabinet_users (id) on delete cascade,
      code_hash bytea not null check (length(code_hash) = 32),
      used_at timestamptz,
      primary key (user_id, code_hash)
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table cabinet_recovery_codes`.execute(db);
  await sql`drop table cabinet_sessions`.execute(db);
  await sql`drop table cabinet_invitations`.execute(db);
  await sql`drop table cabinet_users`.execute(db);
}
