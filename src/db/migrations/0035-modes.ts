import { sql, type Kysely } from 'kysely';

/**
 * Modes (docs/contract.md §10.2).
 *
 * - `webhook_endpoints.mode` (`live` | `sandbox`): the mode of the key that made the endpoint
 *   (the cabinet chooses); the endpoint receives only that mode's order events. Endpoints made
 *   before this migration get `live`: they received both modes' events until now, and a live
 *   receiver is what a partner's integration is built around; sandbox events stop reaching them
 *   (docs/adr/0025-modes.md). No default after this: every writer names the mode.
 * - `order_events.actor_key_id` / `actor_user_id`: a partner's move names the key that made it,
 *   or the cabinet person. Plain columns, no foreign key: the audit outlives a key or a person.
 *   Rows written before this migration name neither, so the check holds for new rows only
 *   (`not valid`).
 * - create_partner_order (0029's) fans `order.created` out to the endpoints of the order's mode
 *   only. The order_events row it writes comes from p_event whole, the actor columns with it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table webhook_endpoints add column mode text not null default 'live' check (mode in ('live', 'sandbox'))`.execute(db);
  await sql`alter table webhook_endpoints alter column mode drop default`.execute(db);
  await sql`create index webhook_endpoints_partner_mode_idx on webhook_endpoints (partner_id, mode) where enabled`.execute(db);

  await sql`alter table order_events add column actor_key_id text check (length(actor_key_id) <= 64)`.execute(db);
  await sql`alter table order_events add column actor_user_id uuid`.execute(db);
  await sql`
    alter table order_events add constraint order_events_partner_actor_check
      check (actor <> 'partner' or actor_key_id is not null or actor_user_id is not null) not valid
  `.execute(db);
  await sql`
    alter table order_events add constraint order_events_actor_names_check
      check ((actor_key_id is null and actor_user_id is null) or (actor = 'partner' and (actor_key_id is null or actor_user_id is null)))
  `.execute(db);

  await createFunction(db, sql`and e.mode = case when v_order.sandbox then 'sandbox' else 'live' end`);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await createFunction(db, sql``);
  await sql`alter table order_events drop constraint order_events_actor_names_check`.execute(db);
  await sql`alter table order_events drop constraint order_events_partner_actor_check`.execute(db);
  await sql`alter table order_events drop column actor_user_id`.execute(db);
  await sql`alter table order_events drop column actor_key_id`.execute(db);
  await sql`drop index webhook_endpoints_partner_mode_idx`.execute(db);
  await sql`alter table webhook_endpoints drop column mode`.execute(db);
}

/** 0029's function; `mode` narrows the endpoints `order.created` is fanned out to. */
async function createFunction(db: Kysely<unknown>, mode: ReturnType<typeof sql>): Promise<void> {
  await sql`
    create or replace function create_partner_order(
      p_order jsonb, p_address jsonb, p_event jsonb, p_idempotency_key text, p_max_open_orders integer,
      p_webhook_id text, p_webhook_payload text
    ) returns setof orders
    language plpgsql volatile as $$
    declare
      v_order orders;
      v_open bigint;
    begin
      insert into orders select * from jsonb_populate_record(null::orders, p_order) returning * into v_order;
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
          where e.partner_id = v_order.partner_id and e.enabled ${mode}
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
