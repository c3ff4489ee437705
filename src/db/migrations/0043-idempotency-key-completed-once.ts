import { sql, type Kysely } from 'kysely';

/**
 * An Idempotency-Key record, once completed with an order, never points at another order (issue
 * 36.8). A claim is released after a short lease (IDEMPOTENCY_CLAIM_LEASE_MS) so that a retry
 * after a crash need not wait long; a first request that was only slow may then still complete
 * after the retry took the claim over. Whichever of the two completes the key second is refused
 * here, inside create_partner_order's statement, so its order, address binding, event and
 * outbox rows roll back with it: one key, one order, however the two interleave. Setting the
 * order back to null (a key retaken after its 24 hours) stays allowed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function idempotency_key_completed_once() returns trigger
    language plpgsql as $$
    begin
      if old.order_id is not null and new.order_id is not null and new.order_id <> old.order_id then
        raise exception 'idempotency_key_completed' using errcode = 'P0001', detail = old.order_id::text;
      end if;
      return new;
    end
    $$`.execute(db);
  await sql`
    create trigger idempotency_keys_completed_once
      before update of order_id on idempotency_keys
      for each row execute function idempotency_key_completed_once()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger idempotency_keys_completed_once on idempotency_keys`.execute(db);
  await sql`drop function idempotency_key_completed_once()`.execute(db);
}
