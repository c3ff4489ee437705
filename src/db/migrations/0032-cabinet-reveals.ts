import { sql, type Kysely } from 'kysely';

/**
 * The cabinet's one-use reveals: a form that creates a secret (an API key, a webhook
 * endpoint or its rotated signing secret) answers with a redirect, and the page it leads to
 * shows the secret once, by taking this row. A reload of that page, or any later request, finds
 * no row and shows no secret; reloading never posts the form again. The row holds no secret:
 * it names the key or endpoint whose sealed secret (api_keys.secret_ciphertext,
 * webhook_endpoints.secret, under SECRETS_KEY) the page opens, and only for the session that
 * made it (gone with the session), for a short while.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table cabinet_reveals (
      id uuid primary key default gen_random_uuid(),
      session_id uuid not null references cabinet_sessions (id) on delete cascade,
      kind text not null check (kind in ('api_key', 'webhook_secret')),
      -- The key id (api_key) or the endpoint id (webhook_secret).
      subject text not null check (length(subject) <= 64),
      created_at timestamptz not null,
      expires_at timestamptz not null,
      check (expires_at > created_at)
    )`.execute(db);
  await sql`create index cabinet_reveals_session_idx on cabinet_reveals (session_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table cabinet_reveals`.execute(db);
}
