import { sql, type Kysely } from 'kysely';

/**
 * Order creation with its webhook outbox row in the same statement: before, the
 * service wrapped `create_partner_order` (migration 0020) and the outbox insert in BEGIN …
 * COMMIT, four round trips and a connection held across them. This version also records the
 * `order.created` event, so an order from the stock of derived addresses is one autocommit
 * statement, and the order and its event still commit or fail together (docs/contract.md §8: the event is
 * written in the transaction of the move it reports).
 *
 * The two new parameters are the event's webhook-id and its body, written by the service (the
 * Order exactly as GET answers it, byte for byte: that writer is JavaScript). The event is stored
 * as `insertWebhookEvents` (db/repositories/webhook-events-repository.ts) stores one: only when an
 * enabled endpoint of the partner takes `order.created`, with one pending delivery per such
 * endpoint, due at the order's creation time. A change to the outbox tables changes both.
 * Everything else is 0020's function unchanged (the idempotency record, the pool row, the
 * open-order cap counted after the writes), and the outbox rows come after the cap check, so a
 * refused order never builds them.
 *
 * 0020's five-argument function stays: a process of the previous release, still running during
 * a rolling deploy, calls it (and writes its outbox row itself, in its own transaction).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function create_partner_order(
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
        where partner_id = v_order.partner_id and status = 'waiting_deposit' and expires_at > v_order.created_at;
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

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop function create_partner_order(jsonb, jsonb, jsonb, text, integer, text, text)`.execute(db);
}
