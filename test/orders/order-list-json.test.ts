import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { listPartnerOrders, listPartnerOrdersWire } from '../../src/db/repositories/partner-order-list-repository.js';
import { ORDER_STATUSES } from '../../src/domain/order-status.js';
import { partnerOrderJson, partnerOrderListJson } from '../../src/views/partner-order-view.js';
import { buildTestApp, ManualClock } from '../helpers/test-app.js';
import { createOrder, LIFECYCLE_ENV, type Harness } from '../lifecycle/lifecycle-helpers.js';

/**
 * GET /partner/orders writes each Order mostly from PostgreSQL's text (views/partner-order-view.ts
 * PARTNER_ORDER_LIST_SELECT): the bytes must be those of the Order's own writer, byte for byte,
 * for every status, null and set optional fields, text that JSON escapes, amounts of any scale,
 * fees shown and hidden, held refunds, metadata keys in JavaScript's order; and the HTTP page is
 * those Orders with the keyset cursor as before.
 */

/** Text JSON escapes (quote, backslash, controls), non-ASCII, a character outside the BMP. */
const AWKWARD = 'a"b\\c\u0001d\u001f\n\t\u007fé\u2028💩/</script>';

/** Overrides of a created order's columns, each a row of its own (jsonb_populate_record). */
function variants(now: Date): Record<string, unknown>[] {
  const past = new Date(now.getTime() - 60_000).toISOString();
  const future = new Date(now.getTime() + 600_000).toISOString();
  const exchanged = { exchanged_at: past, partner_fee: '0.001500000000000000', partner_fee_usd: '3.5', volume_usd: '100.10' };
  const paid = { payout_txid: `0x${'ab'.repeat(32)}`, amount_to_final: '1.904200000000000000', rate_final: '19.042' };
  return [
    {},
    { expires_at: past },
    { status: 'waiting_deposit', expires_at: past, refund_address: null, refund_address_tag: null },
    ...ORDER_STATUSES.map((status) => ({ status })),
    { status: 'completed', ...exchanged, ...paid, deposit_txid: 'd'.repeat(64), deposit_confirmations: 6, amount_from_received: '0.100000000000000000' },
    { status: 'failed', ...exchanged, amount_to_final: '1.5', status_reason: 'payout_failed' },
    { status: 'sending', ...exchanged, amount_to_final: '2', rate_final: '3' },
    { status: 'refunding', refund_hold_until: future, refund_address: null, refund_address_tag: null },
    { status: 'refunding', refund_hold_until: past, refund_address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', refund_address_tag: AWKWARD },
    { status: 'refunded', refund_txid: AWKWARD, amount_refunded: '0.000000000000000000', amount_from_received: '123456789012345678.123456789012345678' },
    { network_fee: null, network_fee_usd: null, eta_seconds: null },
    { network_fee: '0', network_fee_usd: '0.000000010000000000', eta_seconds: 2147483647 },
    { deposit_uri: AWKWARD, recipient_address: AWKWARD, recipient_address_tag: AWKWARD, deposit_address_tag: '12345', external_id: AWKWARD },
    { deposit_uri: null, deposit_address_tag: 'memo', refund_address: 'r', refund_address_tag: null, status_reason: 'awaiting_liquidity' },
    { metadata: { b: '1', a: 'x"y', 10: 'n', 2: 'm', é: 'u', A: AWKWARD, '': 'empty', '01': 'not an index' } },
    { amount_from_expected: '0.000000000000000001', amount_to_expected: '99999999999999999999.999999999999999999', rate_quoted: '1' },
    { created_at: '2026-06-30T23:59:59.999Z', updated_at: '2026-07-01T00:00:00.000Z' },
  ];
}

describe('the order list written by PostgreSQL', () => {
  let h: Harness;
  before(async () => {
    const clock = new ManualClock(new Date('2026-07-01T10:00:00.000Z'));
    const t = await buildTestApp({ clock, env: { ...LIFECYCLE_ENV, PUBLIC_URL: 'https://exchange.example' } });
    h = { t, clock, partner: await t.createPartner({ rate_limit_per_minute: 100_000 }) };
    const base = await createOrder(h, { refund_address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4' });
    const db = h.t.db.handle.db;
    // Made two hours before now (a created_at before every expires_at below), unless a variant says otherwise.
    const made = new Date(clock.now().getTime() - 7_200_000).toISOString();
    for (const [i, variant] of variants(clock.now()).entries()) {
      const override = { created_at: made, ...variant };
      for (const sandbox of [false, true]) {
        await sql`
          insert into orders
          select (jsonb_populate_record(o, ${JSON.stringify(override)}::jsonb || jsonb_build_object(
            'id', gen_random_uuid(), 'short_id', 'LJ-' || lpad(${String(i * 2 + (sandbox ? 1 : 0))}, 6, '0'), 'quote_id', null, 'sandbox', ${sandbox}::boolean,
            'deposit_address', 'list-json-' || ${String(i)} || ${sandbox ? '-s' : ''}::text,
            'status_token', md5(${String(i)} || ${String(sandbox)}) || 'listjson'))).*
          from orders o where o.id = ${base.id}
        `.execute(db);
      }
    }
  });
  after(() => h.t.close());

  it('writes every Order byte for byte as the Order writer does, on both modes and at two instants', async () => {
    const db = h.t.db.handle.db;
    let compared = 0;
    for (const sandbox of [false, true]) {
      for (const now of [h.clock.now(), new Date(h.clock.now().getTime() + 3_600_000)]) {
        for (const base of ['', 'https://exchange.example']) {
          const page = { limit: 100, now };
          const rows = await listPartnerOrders(db, h.partner.id, { sandbox }, page);
          const listRows = await listPartnerOrdersWire(db, h.partner.id, { sandbox }, page);
          assert.deepEqual(listRows.map((row) => row.id), rows.map((row) => row.id));
          assert.ok(rows.length >= variants(now).length, String(rows.length));
          for (const [i, row] of rows.entries()) {
            assert.equal(partnerOrderListJson(listRows[i]!, now, base), partnerOrderJson(row, now, base), `order ${row.id} (${row.short_id})`);
            compared++;
          }
        }
      }
    }
    assert.ok(compared > 150, String(compared));
  });

  it('GET /partner/orders pages them as before: the same Orders, newest first, with the keyset cursor', async () => {
    const db = h.t.db.handle.db;
    const now = h.clock.now();
    const expected = (await listPartnerOrders(db, h.partner.id, { sandbox: false }, { limit: 100, now })).map((row) => partnerOrderJson(row, now, 'https://exchange.example'));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? 'limit=7' : `limit=7&cursor=${encodeURIComponent(cursor)}`;
      const res = await h.t.app.inject({ method: 'GET', url: `/api/v1/partner/orders?${query}`, headers: { authorization: `Bearer ${h.partner.apiKey}` } });
      assert.equal(res.statusCode, 200, res.body);
      const body = JSON.parse(res.body) as { orders: unknown[]; next_cursor: string | null };
      const orders = expected.slice(seen.length, seen.length + body.orders.length);
      const next = body.next_cursor === null ? 'null' : JSON.stringify(body.next_cursor);
      assert.equal(res.body, `{"orders":[${orders.join(',')}],"next_cursor":${next}}`);
      seen.push(...orders);
      cursor = body.next_cursor;
    } while (cursor !== null);
    assert.equal(seen.length, expected.length);
  });
});
