import { sql, type Kysely } from 'kysely';

/**
 * Order creation in one statement: `create_partner_order` writes the order, binds its
 * deposit address, appends the creation event, completes the Idempotency-Key record and checks
 * the partner's open-order cap, server side, in the caller's transaction (one autocommit
 * statement when nothing else is written with it). Before, that was up to nine round trips, each
 * built, sent and parsed, with a connection held across them.
 *
 * - `p_order`, `p_event`: the whole `orders` / `order_events` row as JSON (NUMERIC as decimal
 *   strings, timestamps as ISO text: both read exactly by the column types). Whole rows, so a
 *   column added later needs no new version of this function, only its value in the JSON.
 * - `p_address`: `{chain, address, tag, strategy, derivation_index}` of a derived or memo
 *   address, inserted; or `{id}` of a pool row the caller claimed in this transaction, bound.
 * - The cap (docs/adr/0004-deposit-addresses.md): the partner's row is locked FOR NO KEY UPDATE only
 *   after the rows are written, then its open orders are counted. In a VOLATILE plpgsql function
 *   every statement takes a new snapshot under READ COMMITTED, so the count sees every
 *   creation that committed while this one waited for the lock: a partner's creations count
 *   one after another and the cap holds exactly; the lock is held for the count and the commit.
 *   Over the cap it raises `open_orders_limit` (SQLSTATE P0001, detail: the other open orders),
 *   which undoes everything, address and idempotency record included.
 *
 * Returns the order row; the caller selects the columns it needs from it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function create_partner_order(
      p_order jsonb, p_address jsonb, p_event jsonb, p_idempotency_key text, p_max_open_orders integer
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
      return next v_order;
    end
    $$
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop function create_partner_order(jsonb, jsonb, jsonb, text, integer)`.execute(db);
}
