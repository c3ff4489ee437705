import { sql, type Kysely } from 'kysely';

/**
 * The browsers a cabinet person has signed in from (docs/adr/0051-cabinet-mail-period-responses-reference.md): a sign-in
 * from a device (User-Agent and client address) not seen before for the person is told to them
 * by mail. Only a SHA-256 of the pair is kept, never the address or the User-Agent themselves;
 * a row goes with its person, and rows not seen for 180 days are pruned at the person's next
 * sign-in (a device that comes back after that is new again).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table cabinet_sign_in_devices (
      user_id uuid not null references cabinet_users (id) on delete cascade,
      device_hash bytea not null check (octet_length(device_hash) = 32),
      first_seen_at timestamptz not null,
      last_seen_at timestamptz not null,
      primary key (user_id, device_hash)
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table cabinet_sign_in_devices`.execute(db);
}
