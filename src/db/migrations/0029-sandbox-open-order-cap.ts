import { sql, type Kysely } from 'kysely';

/**
 * Sandbox orders are counted apart (docs/contract.md §7.6): the open-order cap of create_partner_order
 * (0028) counted every order of the partner awaiting a deposit, so a partner's tests could fill
 * its live cap and refuse real orders, and the reverse. Each kind now counts against the cap on
 * its own (the same number: the cap protects the deposit addresses, and a sandbox address is
 * made from random bytes, so it only bounds the rows a test key can leave open). The function is
 * 0028's with that count changed; the partial index that serves the count gains `sandbox`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await createFunction(db, sql`and sandbox = v_order.sandbox`);
  await sql`create index orders_open_by_partner_kind_idx on orders (partner_id, sandbox, expires_at) where status = 'waiting_deposit'`.execute(db);
  await sql`drop index orders_open_by_partner_idx`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`create index orders_open_by_partner_idx on orders (partner_id, expires_at) where status = 'waiting_deposit'`.execute(db);
  await sql`drop index orders_open_by_partner_kind_idx`.execute(db);
  await createFunction(db, sql``);
}

/** 0028's function; `kind` narrows the open-order count. */
async function createFunction(db: Kysely<unknown>, kind: ReturnType<typeof sql>): Promise<void> {
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
        where partner_id = v_order.partner_id ${kind}
          and status = 'waiting_deposit' and expires_at > v_order.created_at;
      -- The count includes this order.
      if v_open - 1 >= p_max_open_orders then
        raise exception 'open_orders_limit' using errcode = 'P0001', detail = (v_open - 1)::text;
      end if;
      if p_webhook_id is not null then
        with targets as (
          select e.id from webhook_endpoints e
          where e.partner_id = v_order.partner_id and e.enabled and (e.events is null or e.events ? 'order.created')
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
