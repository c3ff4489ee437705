import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { findPartnerOrderView, type PartnerOrderRow } from '../../src/db/repositories/orders-repository.js';
import { PARTNER_ORDER_COLUMNS } from '../../src/views/partner-order-view.js';
import { toJson } from '../../src/json.js';
import { orderView } from '../../src/routes/v1/order-view.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';

/**
 * GET /partner/orders/{order_id} reads fewer columns through a query compiled once, as text, and
 * writes its body with the direct JSON writer: the bytes are those the view object of the whole
 * row (routes/v1/order-view.ts's orderView through toJson) writes, with every nullable field null
 * and set.
 */

const ETH_ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';

type Partner = { id: string; apiKey: string; keyId: string };

/** POST a BTC → ETH float order for `partner`; the 201 response. */
async function createBtcEthOrder(t: TestApp, partner: Partner) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/partner/orders',
    headers: { authorization: `Bearer ${partner.apiKey}` },
    payload: { coin_from: 'BTC', network_from: 'BTC', coin_to: 'ETH', network_to: 'ETH', amount_from: 0.1, rate_type: 'float', recipient_address: ETH_ADDRESS },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res;
}

describe('GET /partner/orders/{order_id}: the same bytes as before', () => {
  const clock = new ManualClock(new Date('2026-06-15T12:00:00.000Z'));
  let t: TestApp;
  let acme: Partner;
  let order: { id: string; short_id: string; expires_at: string };
  let createdBody: string;
  before(async () => {
    // These cases write the order's row behind the lifecycle's back (no move is told), which a
    // process's order read cache cannot see: every read here goes to the database, the path whose
    // bytes they pin (the cache serves those very bytes: test/orders/order-read-cache.test.ts).
    t = await buildTestApp({ clock, env: { WORKER: 'off', PRICE_POLL_SECONDS: '3600', ORDER_CACHE_SIZE: '0' } });
    acme = await t.createPartner({ rate_limit_per_minute: 100_000 });
    const res = await createBtcEthOrder(t, acme);
    order = res.json();
    createdBody = res.body;
  });
  after(() => t.close());

  const db = () => t.db.handle.db;
  const wholeRow = () => db().selectFrom('orders').selectAll().where('id', '=', order.id).executeTakeFirstOrThrow();
  const read = (id: string) =>
    t.app.inject({ method: 'GET', url: `/api/v1/partner/orders/${id}`, headers: { 'x-api-key': acme.apiKey } });

  /** The body GET answers, by UUID and by short id, against the body the old path writes now. */
  async function assertSameBytes(label: string): Promise<string> {
    const expected = toJson(orderView(await wholeRow(), clock.now(), ''));
    for (const id of [order.id, order.short_id.toLowerCase()]) {
      const res = await read(id);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.body, expected, `${label}, ${id}`);
    }
    const row = await findPartnerOrderView(db(), { partnerId: acme.id }, { id: order.id });
    assert.ok(row !== undefined);
    assert.equal(toJson(orderView(row, clock.now(), '')), expected, label);
    return expected;
  }

  it('as created: every nullable field null, the body POST answered', async () => {
    const body = await assertSameBytes('as created');
    assert.equal(body, createdBody);
    const parsed = JSON.parse(body) as Record<string, unknown>;
    for (const key of ['deposit_address_tag', 'deposit_txid', 'deposit_confirmations', 'payout_txid', 'amount_from_received', 'refund_txid', 'status_reason']) {
      assert.equal(parsed[key], null, key);
    }
  });

  it('every nullable field set, numerics with trailing zeros, text that JSON escapes', async () => {
    await db()
      .updateTable('orders')
      .set({
        status: 'refunding',
        status_reason: 'amount_below_min',
        amount_from_expected: '1.50000000',
        amount_to_expected: '12345678901234567890.123456789012345678',
        rate_quoted: '0',
        deposit_address_tag: '1234567890 "quoted" \\ tab\t line\u2028 é 💩',
        deposit_uri: 'bitcoin:x?amount=1.5&message="quoted"\u2028💩',
        deposit_txid: 'a'.repeat(64),
        deposit_confirmations: 0,
        payout_txid: '0x' + 'b'.repeat(64),
        amount_from_received: '0.000000000000000001',
        refund_txid: 'c'.repeat(64),
      })
      .where('id', '=', order.id)
      .execute();
    const parsed = JSON.parse(await assertSameBytes('all set')) as Record<string, unknown>;
    assert.equal(parsed.status, 'refunding');
    assert.equal(parsed.deposit_confirmations, 0);
    const body = (await read(order.id)).body;
    // Exact numbers as written by Decimal.toFixed(): trailing zeros of NUMERIC(38, 18) gone.
    assert.match(body, /"amount_from_expected":1\.5,/);
    assert.match(body, /"amount_to_expected":12345678901234567890\.123456789012345678,/);
    assert.match(body, /"rate_quoted":0,/);
    assert.match(body, /"amount_from_received":0\.000000000000000001,/);

    await db().updateTable('orders').set({ amount_from_received: '-2.10', amount_from_expected: '100.000' }).where('id', '=', order.id).execute();
    await assertSameBytes('negative, integral');
  });

  it('times with microseconds, a refund hold and a commission (read as text by the database since issue 18)', async () => {
    // Written in SQL so the stored times carry microseconds a JavaScript Date cannot: both the
    // Date path and to_char show them to the millisecond, truncated.
    await sql`
      update orders set status = 'refunding', status_reason = 'fixed_rate_mismatch',
        created_at = '2026-06-15 11:59:59.999999+00', expires_at = '2026-06-15 12:29:59.123456+00',
        refund_hold_until = '2026-06-15 12:00:00.000500+00', refund_address = ${'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'},
        partner_fee = '0.001200000000000000', partner_fee_usd = '100.000000000000000000',
        volume_usd = '5000.5', exchanged_at = '2026-06-15 11:59:59.5+00'
      where id = ${order.id}
    `.execute(db());
    clock.set(new Date('2026-06-15T11:59:59.999Z'));
    const body = await assertSameBytes('microseconds, hold active');
    assert.match(body, /"actions":\[[^\]]*"continue","refund"\]/);
    assert.match(body, /"created_at":"2026-06-15T11:59:59\.999Z"/);
    assert.match(body, /"refund_hold_until":"2026-06-15T12:00:00\.000Z"/);
    assert.match(body, /"partner_fee":\{"amount":0\.0012,"coin":"ETH","usd":100\}/);
    clock.set(new Date('2026-06-15T12:00:00.001Z'));
    await assertSameBytes('hold lapsed');
    // Failed after the exchange recorded its commission: nothing earned, the Order shows none.
    await sql`update orders set status = 'failed', status_reason = 'payout_failed', refund_hold_until = null where id = ${order.id}`.execute(db());
    assert.match(await assertSameBytes('failed after the exchange'), /"partner_fee":null,"external_id":null,"metadata":\{\},"status_url":"[^"]+","version":\d+\}$/);
    await sql`
      update orders set refund_hold_until = null, partner_fee = null, partner_fee_usd = null, volume_usd = null,
        exchanged_at = null, refund_address = null,
        expires_at = ${order.expires_at}::timestamptz
      where id = ${order.id}
    `.execute(db());
    clock.set(new Date('2026-06-15T12:00:00.000Z'));
  });

  it('a waiting order reads expired from expires_at on, by the clock', async () => {
    await db()
      .updateTable('orders')
      .set({ status: 'waiting_deposit', status_reason: null, deposit_txid: null, deposit_confirmations: null, amount_from_received: null })
      .where('id', '=', order.id)
      .execute();
    clock.set(new Date(new Date(order.expires_at).getTime() - 1));
    assert.equal((JSON.parse(await assertSameBytes('just before')) as { status: string }).status, 'waiting_deposit');
    clock.set(new Date(order.expires_at));
    assert.equal((JSON.parse(await assertSameBytes('at expiry')) as { status: string }).status, 'expired');
  });
});

describe('findPartnerOrderView: compiled once, partner filter in the SQL', () => {
  let t: TestApp;
  let acme: Partner;
  let other: Partner;
  let order: { id: string; short_id: string };
  before(async () => {
    t = await buildTestApp({ env: { WORKER: 'off', PRICE_POLL_SECONDS: '3600' } });
    acme = await t.createPartner({ rate_limit_per_minute: 100_000 });
    other = await t.createPartner({ rate_limit_per_minute: 100_000 });
    const res = await createBtcEthOrder(t, acme);
    order = res.json();
  });
  after(() => t.close());

  it('the view columns, by id and by short id in any case; the same rows every call', async () => {
    const db = t.db.handle.db;
    const whole = await db.selectFrom('orders').selectAll().where('id', '=', order.id).executeTakeFirstOrThrow();
    const view: PartnerOrderRow = { ...whole };
    // The columns the view is made of (computed fields such as `actions` read several).
    const viewKeys = [...PARTNER_ORDER_COLUMNS].sort();
    for (let i = 0; i < 3; i++) {
      for (const by of [{ id: order.id }, { shortId: order.short_id }, { shortId: order.short_id.toLowerCase() }]) {
        const row = await findPartnerOrderView(db, { partnerId: acme.id }, by);
        assert.ok(row !== undefined);
        assert.deepEqual(Object.keys(row).sort(), viewKeys);
        assert.deepEqual(row, Object.fromEntries(viewKeys.map((key) => [key, view[key]])));
      }
    }
    // Inside a transaction too (the caller owns it).
    await db.transaction().execute(async (tx) => {
      const row = await findPartnerOrderView(tx, { partnerId: acme.id }, { id: order.id });
      assert.deepEqual(row, Object.fromEntries(viewKeys.map((key) => [key, view[key]])));
    });
  });

  it("another partner's order, or an unknown one, is not found", async () => {
    const db = t.db.handle.db;
    for (const by of [{ id: order.id }, { shortId: order.short_id }]) {
      assert.equal(await findPartnerOrderView(db, { partnerId: other.id }, by), undefined);
    }
    assert.equal(await findPartnerOrderView(db, { partnerId: acme.id }, { id: '00000000-0000-4000-8000-000000000000' }), undefined);
    assert.equal(await findPartnerOrderView(db, { partnerId: acme.id }, { shortId: 'EX-ZZZZZZ' }), undefined);
  });
});
