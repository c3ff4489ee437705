import { sql, type Kysely } from 'kysely';

/**
 * Order metadata (docs/contract.md §10.8).
 *
 * - `orders.external_id`: the partner's own reference for the order, at most 64 characters,
 *   unique per partner and mode (a partial unique index: most orders have none).
 * - `orders.metadata`: the partner's string map (at most 10 keys, checked at the edge), `{}`
 *   when none was sent, so every order has one and the Order always shows an object.
 * - `orders.end_user_ip`: the X-End-User-IP the order was created with (`inet`: the database
 *   refuses what is not an address), shown to the operator only.
 * - create_partner_order (0035's, everything it did kept) inserts the order with
 *   `on conflict do nothing` on that index: a second order with an external_id the partner's
 *   mode already has writes nothing and raises `external_id_conflict` with the existing order's
 *   id, also when two creations race (the second waits for the first's commit, then finds its
 *   row). Any other unique violation (short id, quote id) still raises as before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table orders add column external_id text check (length(external_id) between 1 and 64)`.execute(db);
  await sql`alter table orders add column metadata jsonb not null default '{}'::jsonb check (jsonb_typeof(metadata) = 'object')`.execute(db);
  await sql`alter table orders add column end_user_ip inet`.execute(db);
  await sql`
    create unique index orders_partner_external_id_key on orders (partner_id, sandbox, external_id)
      where external_id is not null
  `.execute(db);
  await createFunction(db, true);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await createFunction(db, false);
  await sql`drop index orders_partner_external_id_key`.execute(db);
  await sql`alter table orders drop column end_user_ip`.execute(db);
  await sql`alter table orders drop column metadata`.execute(db);
  await sql`alter table orders drop column external_id`.execute(db);
}

/** 0035's function; with `externalId`, the insert gives way to an order holding the same external_id. */
async function createFunction(db: Kysely<unknown>, externalId: boolean): Promise<void> {
  const insert = externalId
    ? sql`
      v_new := jsonb_populate_record(null::orders, p_order);
      insert into orders select v_new.*
        on conflict (partner_id, sandbox, external_id) where external_id is not null do nothing
        returning * into v_order;
      if not found then
        select o.id into v_existing from orders o
          where o.partner_id = v_new.partner_id and o.sandbox = v_new.sandbox and o.external_id = v_new.external_id;
        raise exception 'external_id_conflict' using errcode = 'P0001', detail = v_existing::text;
      end if;`
    : sql`insert into orders select * from jsonb_populate_record(null::orders, p_order) returning * into v_order;`;
  await sql`
    create or replace function create_partner_order(
      p_order jsonb, p_address jsonb, p_event jsonb, p_idempotency_key text, p_max_open_orders integer,
      p_webhook_id text, p_webhook_payload text
    ) returns setof orders
    language plpgsql volatile as $$
    declare
      v_order orders;
      v_new orders;
      v_open bigint;
      v_existing uuid;
    begin
      ${insert}
      if p_address ? 'id' then
        update deposit_addresses set order_id = v_order.id, assigned_at = v_order.created_at
          where id = (p_address ->> 'id')::uuid and order_id is null;
        if not found then
          raise exception 'pool address % is not free', p_address ->> 'id';
        end if;
      else
        insert into deposit_addresses (chain, address, tag, strategy, derivation_index, order_id, assigned_at)
          values (p_address ->> 'chain', v_order.deposit_address, coalesce(v_order.deposit_address_tag, ''),
            p_address ->> 'strategy', (p_address ->> 'derivation_index')::bigint, v_order.id, v_order.created_at);
      end if;
      insert into order_events select * from jsonb_populate_record(null::order_events, p_event);
      if p_idempotency_key is not null then
        update idempotency_keys set order_id = v_order.id
          where partner_id = v_order.partner_id and key = p_idempotency_key;
      end if;
      perform 1 from partners where id = v_order.partner_id for no key update;
      select count(*) into v_open from orders
        where partner_id = v_order.partner_id and sandbox = v_order.sandbox
          and status = 'waiting_deposit' and expires_at > v_order.created_at;
      -- The count includes this order.
      if v_open - 1 >= p_max_open_orders then
        raise exception 'open_orders_limit' using errcode = 'P0001', detail = (v_open - 1)::text;
      end if;
      if p_webhook_id is not null then
        with targets as (
          select e.id from webhook_endpoints e
          where e.partner_id = v_order.partner_id and e.enabled
            and e.mode = case when v_order.sandbox then 'sandbox' else 'live' end
            and (e.events is null or e.events ? 'order.created')
        ), stored as (
          insert into webhook_events (id, partner_id, type, order_id, payload, created_at)
          select p_webhook_id, v_order.partner_id, 'order.created', v_order.id, p_webhook_payload, v_order.created_at
          where exists (select 1 from targets)
          returning id
        )
        insert into webhook_deliveries (id, event_id, endpoint_id, status, attempts, next_attempt_at, created_at, updated_at)
        select gen_random_uuid(), s.id, t.id, 'pending', 0, v_order.created_at, v_order.created_at, v_order.created_at
        from targets t cross join stored s;
      end if;
      return next v_order;
    end
    $$
  `.execute(db);
}
