import { sql, type Kysely } from 'kysely';

/**
 * The operator's people (docs/decisions.md, "Operator console"): each person who runs the
 * exchange signs in under their own name with a role (`viewer`, `support`, `finance`, `admin`),
 * a password (argon2id) and a TOTP second factor, which is required: a session opens nothing
 * until the person enrolled and gave a code. The first admin comes from the bootstrap
 * ADMIN_TOKEN (`operators create`), the next ones from an admin in the console. As in the
 * cabinet (migrations 0022, 0027), every secret a browser or a link carries (invitation,
 * session, recovery code, personal API token) is kept only as its SHA-256; the TOTP secret is
 * sealed under SECRETS_KEY.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table operator_people (
      id uuid primary key default gen_random_uuid(),
      email text not null check (email = lower(email) and length(email) between 3 and 254 and email like '%_@_%'),
      -- The name the console and the audit log show beside the email; optional.
      name text check (length(name) between 1 and 100),
      role text not null check (role in ('viewer', 'support', 'finance', 'admin')),
      -- Null until the person used their invitation link.
      password_hash text check (password_hash like '$argon2id$%'),
      totp_secret_sealed bytea,
      totp_enabled_at timestamptz,
      totp_last_step bigint,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      check (totp_enabled_at is null or totp_secret_sealed is not null)
    )`.execute(db);
  await sql`create unique index operator_people_email_idx on operator_people (email)`.execute(db);

  await sql`
    create table operator_invitations (
      id uuid primary key default gen_random_uuid(),
      person_id uuid not null references operator_people (id) on delete cascade,
      token_hash bytea not null unique check (length(token_hash) = 32),
      expires_at timestamptz not null,
      -- Used, or voided by a newer link for the same person.
      used_at timestamptz,
      created_at timestamptz not null,
      check (expires_at > created_at)
    )`.execute(db);
  await sql`create index operator_invitations_person_idx on operator_invitations (person_id)`.execute(db);

  await sql`
    create table operator_sessions (
      token_hash bytea primary key check (length(token_hash) = 32),
      id uuid not null unique default gen_random_uuid(),
      person_id uuid not null references operator_people (id) on delete cascade,
      -- Password given, second factor (or its enrolment) not yet: only the code page is open.
      second_factor_pending boolean not null default true,
      user_agent text check (length(user_agent) <= 256),
      created_at timestamptz not null,
      last_seen_at timestamptz not null,
      expires_at timestamptz not null,
      check (expires_at > created_at)
    )`.execute(db);
  await sql`create index operator_sessions_person_idx on operator_sessions (person_id)`.execute(db);
  await sql`create index operator_sessions_expires_idx on operator_sessions (expires_at)`.execute(db);

  await sql`
    create table operator_recovery_codes (
      person_id uuid not null references operator_people (id) on delete cascade,
      code_hash bytea not null check (length(code_hash) = 32),
      used_at timestamptz,
      primary key (person_id, code_hash)
    )`.execute(db);

  await sql`
    create table operator_tokens (
      id uuid primary key default gen_random_uuid(),
      person_id uuid not null references operator_people (id) on delete cascade,
      label text not null check (length(label) between 1 and 100),
      -- The most the token may do; it never does more than its person's role of the moment.
      role text not null check (role in ('viewer', 'support', 'finance', 'admin')),
      token_hash bytea not null unique check (length(token_hash) = 32),
      created_at timestamptz not null,
      -- Written at most once a minute per token.
      last_used_at timestamptz,
      revoked_at timestamptz
    )`.execute(db);
  await sql`create index operator_tokens_person_idx on operator_tokens (person_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table operator_tokens`.execute(db);
  await sql`drop table operator_recovery_codes`.execute(db);
  await sql`drop table operator_sessions`.execute(db);
  await sql`drop table operator_invitations`.execute(db);
  await sql`drop table operator_people`.execute(db);
}
