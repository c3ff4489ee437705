import { sql, type Kysely } from 'kysely';

/**
 * Team roles in the cabinet (docs/decisions.md, "Cabinet team roles"): every person is an
 * `owner` (people, markup, payout addresses, and all a developer does), a `developer` (API
 * keys, webhooks, order actions) or a `viewer` (reads only). The people there before roles
 * are owners (they could do everything). An invitation carries the role it gives: the
 * operator's are owners; an owner's, the role the owner chose. An owner's invitation keeps its
 * token sealed under SECRETS_KEY until the owner's page has shown the link once (a reveal of
 * kind `invitation`), then forgets it; only the SHA-256 stays to check the link.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table cabinet_users add column role text not null default 'owner' check (role in ('owner', 'developer', 'viewer'))`.execute(db);
  // From now on every new person is given a role by their invitation: no default to fall back on.
  await sql`alter table cabinet_users alter column role drop default`.execute(db);
  await sql`alter table cabinet_invitations add column role text not null default 'owner' check (role in ('owner', 'developer', 'viewer'))`.execute(db);
  await sql`alter table cabinet_invitations add column invited_by uuid references cabinet_users (id) on delete set null`.execute(db);
  await sql`alter table cabinet_invitations add column token_sealed bytea`.execute(db);
  await sql`alter table cabinet_reveals drop constraint cabinet_reveals_kind_check`.execute(db);
  await sql`alter table cabinet_reveals add constraint cabinet_reveals_kind_check check (kind in ('api_key', 'webhook_secret', 'invitation'))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from cabinet_reveals where kind = 'invitation'`.execute(db);
  await sql`alter table cabinet_reveals drop constraint cabinet_reveals_kind_check`.execute(db);
  await sql`alter table cabinet_reveals add constraint cabinet_reveals_kind_check check (kind in ('api_key', 'webhook_secret'))`.execute(db);
  await sql`alter table cabinet_invitations drop column token_sealed`.execute(db);
  await sql`alter table cabinet_invitations drop column invited_by`.execute(db);
  await sql`alter table cabinet_invitations drop column role`.execute(db);
  await sql`alter table cabinet_users drop column role`.execute(db);
}
