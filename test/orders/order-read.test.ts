import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';
import { assertError } from '../rates/rates-helpers.js';

/**
 * GET /partner/orders/{order_id} (spec §4.4): by UUID or short id (case-insensitive), only the
 * caller's own orders, 404 `{detail, code}` for everything else; an order past its deposit
 * window reads as expired before the sweep has moved it (docs/contract.md §4).
 */

const ETH_ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const WINDOW_MS = 30 * 60 * 1000;

const BTC_ETH = {
  coin_from: 'BTC',
  network_from: 'BTC',
  coin_to: 'ETH',
  network_to: 'ETH',
  amount_from: 0.1,
  rate_type: 'float',
  recipient_address: ETH_ADDRESS,
};

type Partner = { id: string; apiKey: string; keyId: string };
type Order = { id: string; short_id: string; status: string; expires_at: string };

describe('GET /partner/orders/{order_id}', () => {
  const clock = new ManualClock(new Date('2026-06-15T12:00:00.000Z'));
  let t: TestApp;
  let acme: Partner;
  let other: Partner;
  let order: Order;
  let createdBody: string;
  before(async () => {
    // No in-process worker: the stored status must stay as the API left it.
    t = await buildTestApp({ clock, env: { WORKER: 'off', PRICE_POLL_SECONDS: '3600' } });
    acme = await t.createPartner({ rate_limit_per_minute: 100_000 });
    other = await t.createPartner({ rate_limit_per_minute: 100_000 });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { authorization: `Bearer ${acme.apiKey}` },
      payload: BTC_ETH,
    });
    assert.equal(res.statusCode, 201, res.body);
    order = res.json<Order>();
    createdBody = res.body;
  });
  after(() => t.close());

  const read = (id: string, partner: Partner = acme): Promise<LightMyRequestResponse> =>
    t.app.inject({ method: 'GET', url: `/api/v1/partner/orders/${id}`, headers: { 'x-api-key': partner.apiKey } });

  it('by UUID: 200 with the order as created', async () => {
    const res = await read(order.id);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(res.body, createdBody);
  });

  it('by short id, upper or lower case, and by upper-case UUID: the same order', async () => {
    for (const id of [order.short_id, order.short_id.toLowerCase(), `ex-${order.short_id.slice(3)}`, order.id.toUpperCase()]) {
      const res = await read(id);
      assert.equal(res.statusCode, 200, `${id}: ${res.body}`);
      assert.equal(res.body, createdBody, id);
    }
  });

  it("another partner's key: 404, by UUID and by short id, the same answer as an unknown order", async () => {
    const unknown = assertError(await read('00000000-0000-4000-8000-000000000000', other), 404, 'not_found');
    for (const id of [order.id, order.short_id, order.short_id.toLowerCase()]) {
      const error = assertError(await read(id, other), 404, 'not_found');
      // Nothing tells the caller that the order exists.
      assert.deepEqual(error, unknown);
    }
  });

  it('unknown ids: 404 {detail, code}', async () => {
    const suffix = order.short_id.slice(3);
    const otherLast = suffix.endsWith('A') ? 'B' : 'A';
    for (const id of [
      '5f0c8a52-2b1c-4c6e-9d0a-8f1e2d3c4b5a',
      `EX-${suffix.slice(0, -1)}${otherLast}`,
      // The same six characters under another prefix are another short id.
      `ZZ-${suffix}`,
    ]) {
      assertError(await read(id), 404, 'not_found');
    }
  });

  it('malformed ids: 404 {detail, code}', async () => {
    for (const id of ['abc', 'EX-', 'EX-ABCDE', 'EX-ABCDEFG', 'EX_ABCDEF', encodeURIComponent('../x'), encodeURIComponent("' or 1=1 --"), 'a'.repeat(64), `${order.id}x`, `${order.id.slice(0, -1)}g`]) {
      assertError(await read(id), 404, 'not_found');
    }
    // A path that leaves the route altogether is a 404 too.
    assertError(await read('../x'), 404, 'not_found');
    assertError(await read(`${order.id}/x`), 404, 'not_found');
  });

  it('an order left waiting past expires_at reads expired; the stored status is still waiting_deposit', async () => {
    const stored = async () =>
      (await t.db.handle.db.selectFrom('orders').select('status').where('id', '=', order.id).executeTakeFirstOrThrow()).status;

    clock.advance(WINDOW_MS - 1);
    const before = await read(order.id);
    assert.equal(before.statusCode, 200, before.body);
    assert.equal(before.json<Order>().status, 'waiting_deposit');

    clock.advance(1);
    assert.equal(clock.now().toISOString(), order.expires_at);
    for (const id of [order.id, order.short_id.toLowerCase()]) {
      const res = await read(id);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json<Order & Record<string, unknown>>();
      assert.equal(body.status, 'expired');
      assert.equal(body.expires_at, order.expires_at);
      assert.equal(body.deposit_txid, null);
    }
    assert.equal(await stored(), 'waiting_deposit');

    clock.advance(24 * 60 * 60 * 1000);
    assert.equal((await read(order.id)).json<Order>().status, 'expired');
    assert.equal(await stored(), 'waiting_deposit');
  });
});
