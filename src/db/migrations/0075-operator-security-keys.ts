import { sql, type Kysely } from 'kysely';

/**
 * WebAuthn security keys of the operator's people, a second factor beside TOTP
 * (docs/adr/0063-operator-security-keys.md):
 * - `operator_security_keys`: one row per registered credential: its id as the browser names it
 *   (base64url, unique across people: an assertion names its credential, which names its person),
 *   the COSE public key, the signature counter the authenticator last reported, the transports
 *   the browser said it has (a hint for the next ceremony), the name the person gave it. Goes with
 *   its person.
 * - `operator_webauthn_challenges`: the challenge of the ceremony a session has under way, one per
 *   session and purpose (a new one replaces it), taken once, refused past `expires_at`. Goes with
 *   its session, so a signed-out or expired session's challenge is gone with it.
 * Additive: the previous release's code neither reads nor writes them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table operator_security_keys (
      id uuid primary key default gen_random_uuid(),
      person_id uuid not null references operator_people (id) on delete cascade,
      -- base64url of at most 1023 bytes (WebAuthn's limit); the length apart, as a regex repetition count stops at 255.
      credential_id text not null unique check (credential_id ~ '^[A-Za-z0-9_-]+$' and length(credential_id) between 16 and 1366),
      public_key bytea not null check (octet_length(public_key) between 32 and 4096),
      sign_count bigint not null default 0 check (sign_count between 0 and 4294967295),
      transports text[] not null default '{}' check (cardinality(transports) <= 8),
      name text not null check (length(name) between 1 and 60),
      created_at timestamptz not null,
      last_used_at timestamptz
    )`.execute(db);
  await sql`create index operator_security_keys_person_idx on operator_security_keys (person_id)`.execute(db);

  await sql`
    create table operator_webauthn_challenges (
      session_id uuid not null references operator_sessions (id) on delete cascade,
      purpose text not null check (purpose in ('registration', 'authentication')),
      challenge text not null check (challenge ~ '^[A-Za-z0-9_-]{43}$'),
      expires_at timestamptz not null,
      primary key (session_id, purpose)
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table operator_webauthn_challenges`.execute(db);
  await sql`drop table operator_security_keys`.execute(db);
}
