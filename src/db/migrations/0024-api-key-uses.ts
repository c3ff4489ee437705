import { sql, type Kysely } from 'kysely';

/**
 * A key's last use moves to a table of its own (0023 put it on api_keys): the once-a-minute
 * write of uses then never touches the rows every keyed request reads, and a background write
 * is never mistaken for a change to the keys themselves.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table api_key_uses (
      key_id text primary key references api_keys (key_id),
      last_used_at timestamptz not null
    )`.execute(db);
  await sql`insert into api_key_uses (key_id, last_used_at) select key_id, last_used_at from api_keys where last_used_at is not null`.execute(db);
  await sql`alter table api_keys drop column last_used_at`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table api_keys add column last_used_at timestamptz`.execute(db);
  await sql`update api_keys k set last_used_at = u.last_used_at from api_key_uses u where u.key_id = k.key_id`.execute(db);
  await sql`drop table api_key_uses`.execute(db);
}
