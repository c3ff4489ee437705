import { sql, type Kysely } from 'kysely';

/**
 * The operator audit log (docs/contract.md §12): one row per operator action that may change
 * something (every POST, PUT, PATCH and DELETE under /admin/v1 by an authenticated operator,
 * whatever its outcome), with who, what, on what, the target as it was before and after where
 * the route has one, when and from where. Append-only, kept by the database: an UPDATE or
 * DELETE is refused by a trigger, so not even the API's own role can rewrite history.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table operator_audit (
      id bigint generated always as identity primary key,
      at timestamptz not null,
      actor text not null,
      action text not null,
      target text,
      before jsonb,
      after jsonb,
      status integer not null,
      ip text
    )`.execute(db);
  await sql`create index operator_audit_at_idx on operator_audit (at desc, id desc)`.execute(db);
  await sql`create index operator_audit_target_idx on operator_audit (target, at desc) where target is not null`.execute(db);
  await sql`
    create function operator_audit_append_only() returns trigger language plpgsql as $$
    begin
      raise exception 'operator_audit is append-only: % refused', tg_op using errcode = 'P0001';
    end
    $$`.execute(db);
  await sql`
    create trigger operator_audit_append_only before update or delete on operator_audit
      for each row execute function operator_audit_append_only()`.execute(db);
  await sql`
    create trigger operator_audit_no_truncate before truncate on operator_audit
      for each statement execute function operator_audit_append_only()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table operator_audit`.execute(db);
  await sql`drop function operator_audit_append_only()`.execute(db);
}
