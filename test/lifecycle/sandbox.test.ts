import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  advance,
  BTC_REFUND,
  createOrder,
  exactJson,
  getOrder,
  metricValue,
  orderEvents,
  startHarness,
  tickUntil,
  WINDOW_MS,
  type Harness,
  type OrderJson,
} from './lifecycle-helpers.js';

/**
 * Sandbox keys and orders (docs/contract.md §7.6): a pk_test_ key's orders are flagged, run on the
 * simulator only, are driven by the partner's own simulated deposit, and are listed and counted
 * apart from live orders. The node-watcher side (a real litecoind) is in
 * test/chains/litecoind-watcher.test.ts.
 */
describe('sandbox keys and orders', () => {
  let h: Harness;
  let sandboxKey: string;
  before(async () => {
    h = await startHarness();
    const res = await h.t.admin('POST', `/admin/v1/partners/${h.partner.id}/keys`, { sandbox: true });
    assert.equal(res.statusCode, 201, res.body);
    const key = res.json<{ api_key: string; key_id: string; sandbox: boolean }>();
    assert.match(key.key_id, /^pk_test_[a-z0-9]{20}$/);
    assert.ok(key.api_key.startsWith(`${key.key_id}.`));
    assert.equal(key.sandbox, true);
    sandboxKey = key.api_key;
  });
  after(() => h.t.close());

  const deposit = (id: string, body: Record<string, unknown> | undefined, apiKey = sandboxKey) =>
    h.t.app.inject({
      method: 'POST',
      url: `/api/v1/partner/sandbox/orders/${id}/deposit`,
      headers: { authorization: `Bearer ${apiKey}` },
      ...(body === undefined ? {} : { payload: body }),
    });
  const simulatedSends = async (id: string) =>
    h.t.db.handle.db.selectFrom('simulated_sends').select('idempotency_key').where('idempotency_key', 'like', `${id}:%`).execute();

  it('issues live keys by default and lists which keys are sandbox ones', async () => {
    const live = await h.t.admin('POST', `/admin/v1/partners/${h.partner.id}/keys`, {});
    assert.equal(live.statusCode, 201, live.body);
    assert.match(live.json<{ key_id: string }>().key_id, /^pk_[a-z0-9]{20}$/);
    assert.equal(live.json<{ sandbox: boolean }>().sandbox, false);
    const list = await h.t.admin('GET', `/admin/v1/partners/${h.partner.id}/keys`);
    const keys = list.json<{ key_id: string; sandbox: boolean }[]>();
    for (const key of keys) assert.equal(key.sandbox, key.key_id.startsWith('pk_test_'), key.key_id);
    assert.equal(keys.filter((key) => key.sandbox).length, 1);
  });

  it('the database refuses a key whose prefix and flag disagree', async () => {
    const row = await h.t.db.handle.db.selectFrom('api_keys').selectAll().where('partner_id', '=', h.partner.id).executeTakeFirstOrThrow();
    await assert.rejects(
      h.t.db.handle.db.updateTable('api_keys').set({ sandbox: !row.sandbox }).where('key_id', '=', row.key_id).execute(),
      /api_keys_sandbox_prefix_check/,
    );
  });

  it('flags a sandbox key\'s order, which its deposit carries to completed on the simulator', async () => {
    const order = await createOrder(h, {}, sandboxKey);
    assert.equal(order.sandbox, true);
    const res = await deposit(order.id, undefined);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(exactJson<OrderJson>(res).id, order.id);
    const seen = await tickUntil(h, order.id, 'completed', 8, sandboxKey);
    assert.deepEqual(seen.slice(-1), ['completed']);
    const done = await getOrder(h, order.id, sandboxKey);
    assert.equal(done.amount_from_received, order.amount_from_expected);
    assert.notEqual(done.payout_txid, null);
    assert.equal(done.sandbox, true);
    // The payout went to the simulator's sender, once.
    assert.deepEqual(await simulatedSends(order.id), [{ idempotency_key: `${order.id}:payout` }]);
    // A second deposit on the same order is a conflict.
    const again = await deposit(order.id, {});
    assert.equal(again.statusCode, 409, again.body);
    assert.equal(again.json<{ code: string }>().code, 'conflict');
  });

  it('an out-of-range amount sends the order to refunding, then refunded', async () => {
    const order = await createOrder(h, { refund_address: BTC_REFUND }, sandboxKey);
    const res = await deposit(order.short_id.toLowerCase(), { amount: '1000' });
    assert.equal(res.statusCode, 200, res.body);
    const seen = await tickUntil(h, order.id, 'refunded', 8, sandboxKey);
    assert.ok(seen.includes('refunding') || seen.at(-1) === 'refunded', seen.join(' → '));
    const events = await orderEvents(h, order.id);
    assert.ok(events.some((event) => event.to_status === 'refunding' && event.reason === 'amount_above_max'), JSON.stringify(events));
    const refunded = await getOrder(h, order.id, sandboxKey);
    assert.equal(refunded.amount_from_received, '1000');
    assert.notEqual(refunded.refund_txid, null);
  });

  it('takes an exact JSON number as the amount', async () => {
    const order = await createOrder(h, {}, sandboxKey);
    const res = await h.t.app.inject({
      method: 'POST',
      url: `/api/v1/partner/sandbox/orders/${order.id}/deposit`,
      headers: { authorization: `Bearer ${sandboxKey}`, 'content-type': 'application/json' },
      payload: '{"amount":0.123456789012345678}',
    });
    assert.equal(res.statusCode, 200, res.body);
    const row = await h.t.db.handle.db.selectFrom('simulated_deposits').select('amount').where('order_id', '=', order.id).executeTakeFirstOrThrow();
    assert.equal(row.amount, '0.123456789012345678');
    const bad = await deposit(order.id, { amount: '0' });
    assert.equal(bad.statusCode, 400, bad.body);
  });

  it('is 404 for a live order, another partner\'s sandbox order and an unknown one, and changes nothing', async () => {
    const live = await createOrder(h);
    assert.equal(live.sandbox, false);
    const other = await h.t.createPartner({ name: 'Other Sandbox Partner' });
    const otherKey = (await h.t.admin('POST', `/admin/v1/partners/${other.id}/keys`, { sandbox: true })).json<{ api_key: string }>().api_key;
    const foreign = await createOrder(h, {}, otherKey);
    for (const [id, key] of [
      [live.id, sandboxKey],
      [live.id, h.partner.apiKey],
      [foreign.id, sandboxKey],
      ['00000000-0000-4000-8000-000000000000', sandboxKey],
    ] as const) {
      const res = await deposit(id, {}, key);
      assert.equal(res.statusCode, 404, res.body);
      assert.deepEqual(res.json(), { detail: 'order not found', code: 'not_found', errors: [{ code: 'not_found', field: null, detail: 'order not found' }] });
    }
    const rows = await h.t.db.handle.db.selectFrom('simulated_deposits').select('order_id').where('order_id', 'in', [live.id, foreign.id]).execute();
    assert.deepEqual(rows, []);
  });

  // v1.2 (docs/contract.md §10.2): the list follows the key's mode; sandbox=true with a live key was the
  // v1.1 way to list test orders, and is now a 400 (test/orders/order-modes.test.ts).
  it('a live key lists live orders, a sandbox key sandbox ones, never together', async () => {
    const list = async (query: string, apiKey = h.partner.apiKey) => {
      const res = await h.t.app.inject({ method: 'GET', url: `/api/v1/partner/orders?limit=100${query}`, headers: { authorization: `Bearer ${apiKey}` } });
      assert.equal(res.statusCode, 200, res.body);
      return res.json<{ orders: { sandbox: boolean }[] }>().orders;
    };
    const live = await list('');
    const liveToo = await list('&sandbox=false');
    const sandbox = await list('', sandboxKey);
    const sandboxToo = await list('&sandbox=true', sandboxKey);
    assert.ok(live.length > 0 && sandbox.length > 0);
    assert.ok(live.every((order) => !order.sandbox));
    assert.deepEqual(liveToo, live);
    assert.ok(sandbox.every((order) => order.sandbox));
    assert.deepEqual(sandboxToo, sandbox);
    const bad = await h.t.app.inject({ method: 'GET', url: '/api/v1/partner/orders?sandbox=maybe', headers: { authorization: `Bearer ${h.partner.apiKey}` } });
    assert.equal(bad.statusCode, 400, bad.body);
  });

  it('orders_by_status counts live orders only; the operator filters by sandbox', async () => {
    const db = h.t.db.handle.db;
    await h.t.runtime.orderStatusGauge.refresh();
    const liveCompleted = await db.selectFrom('orders').select((eb) => eb.fn.countAll<string>().as('n')).where('status', '=', 'completed').where('sandbox', '=', false).executeTakeFirstOrThrow();
    const sandboxCompleted = await db.selectFrom('orders').select((eb) => eb.fn.countAll<string>().as('n')).where('status', '=', 'completed').where('sandbox', '=', true).executeTakeFirstOrThrow();
    assert.ok(Number(sandboxCompleted.n) > 0);
    assert.equal(await metricValue(h, 'orders_by_status{status="completed"}'), Number(liveCompleted.n));
    const waiting = await metricValue(h, 'orders_by_status{status="waiting_deposit"}');
    const liveWaiting = await db.selectFrom('orders').select((eb) => eb.fn.countAll<string>().as('n')).where('status', '=', 'waiting_deposit').where('sandbox', '=', false).executeTakeFirstOrThrow();
    assert.equal(waiting, Number(liveWaiting.n));

    const sandboxOnly = await h.t.admin('GET', `/admin/v1/orders?partner_id=${h.partner.id}&sandbox=true`);
    const liveOnly = await h.t.admin('GET', `/admin/v1/orders?partner_id=${h.partner.id}&sandbox=false`);
    const all = await h.t.admin('GET', `/admin/v1/orders?partner_id=${h.partner.id}`);
    const flags = (res: typeof all) => res.json<{ sandbox: boolean }[]>().map((order) => order.sandbox);
    assert.ok(flags(sandboxOnly).length > 0 && flags(sandboxOnly).every(Boolean));
    assert.ok(flags(liveOnly).length > 0 && flags(liveOnly).every((flag) => !flag));
    assert.equal(flags(all).length, flags(sandboxOnly).length + flags(liveOnly).length);
  });

  it('refuses an Idempotency-Key replayed from a sandbox key with a live one', async () => {
    const body = {
      coin_from: 'BTC', network_from: 'BTC', coin_to: 'ETH', network_to: 'ETH',
      amount_from: 0.5, rate_type: 'float', recipient_address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    };
    const send = (apiKey: string) =>
      h.t.app.inject({
        method: 'POST',
        url: '/api/v1/partner/orders',
        headers: { authorization: `Bearer ${apiKey}`, 'idempotency-key': 'sandbox-then-live' },
        payload: body,
      });
    const first = await send(sandboxKey);
    assert.equal(first.statusCode, 201, first.body);
    const replay = await send(sandboxKey);
    assert.equal(replay.statusCode, 201, replay.body);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    const live = await send(h.partner.apiKey);
    assert.equal(live.statusCode, 422, live.body);
    assert.equal(live.json<{ code: string }>().code, 'unprocessable');
  });

  it('gives a sandbox order a keyless address of its own: none of the wallet\'s indexes, no gap in it', async () => {
    const db = h.t.db.handle.db;
    const index = async (orderId: string) =>
      (await db.selectFrom('deposit_addresses').select(['strategy', 'derivation_index']).where('order_id', '=', orderId).executeTakeFirstOrThrow());
    const before = await createOrder(h);
    const sandbox = await createOrder(h, {}, sandboxKey);
    const after = await createOrder(h);
    // A mainnet address like a live one (the partner's validation and QR code treat it alike)...
    const address = String(sandbox.deposit_address);
    assert.match(address, /^bc1q[02-9ac-hj-np-z]{38}$/);
    const check = await h.t.app.inject({ method: 'GET', url: `/api/v1/partner/addresses/validate?coin=BTC&address=${address}` });
    assert.equal(check.json<{ valid: boolean }>().valid, true, check.body);
    // ...recorded as a sandbox one, without a derivation index: the live orders around it took
    // consecutive indexes of the operator's wallet.
    assert.deepEqual(await index(sandbox.id), { strategy: 'sandbox', derivation_index: null });
    const [first, next] = [await index(before.id), await index(after.id)];
    assert.equal(first.strategy, 'hd');
    assert.equal(Number(next.derivation_index), Number(first.derivation_index) + 1);
    const created = (await orderEvents(h, sandbox.id))[0];
    assert.equal((created?.data as { derivation_index?: unknown } | null)?.derivation_index, null);
  });

  // create_partner_order counts each kind apart (migration 0029).
  it('counts sandbox orders against a cap of their own: tests never refuse a live order, nor the reverse', async () => {
    const partner = await h.t.createPartner({ name: 'Capped', max_open_orders: 2 });
    const key = (await h.t.admin('POST', `/admin/v1/partners/${partner.id}/keys`, { sandbox: true })).json<{ api_key: string }>().api_key;
    const place = (apiKey: string) =>
      h.t.app.inject({
        method: 'POST',
        url: '/api/v1/partner/orders',
        headers: { 'x-api-key': apiKey },
        payload: { coin_from: 'BTC', network_from: 'BTC', coin_to: 'ETH', network_to: 'ETH', amount_from: 0.5, rate_type: 'float', recipient_address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' },
      });
    for (const apiKey of [key, key]) assert.equal((await place(apiKey)).statusCode, 201);
    const overSandbox = await place(key);
    assert.equal(overSandbox.statusCode, 422, overSandbox.body);
    assert.equal(overSandbox.json<{ code: string }>().code, 'open_orders_limit');
    // Two open sandbox orders: the live cap is still whole.
    for (const apiKey of [partner.apiKey, partner.apiKey]) assert.equal((await place(apiKey)).statusCode, 201);
    const overLive = await place(partner.apiKey);
    assert.equal(overLive.statusCode, 422, overLive.body);
    assert.equal(overLive.json<{ code: string }>().code, 'open_orders_limit');
  });

  // Runs last: it moves the clock past every open order's deposit window.
  it('counts sandbox moves in sandbox_order_transitions_total, never in order_transitions_total', async () => {
    const series = (name: string, from: string, to: string) => `${name}{from="${from}",to="${to}"}`;
    const read = async (from: string, to: string) => ({
      live: (await metricValue(h, series('order_transitions_total', from, to))) ?? 0,
      sandbox: (await metricValue(h, series('sandbox_order_transitions_total', from, to))) ?? 0,
    });
    const steps = [
      ['waiting_deposit', 'confirming'],
      ['confirming', 'exchanging'],
      ['exchanging', 'sending'],
      ['sending', 'completed'],
    ] as const;
    // Earlier tests' orders finish their moves first, so only this order's are counted below.
    for (let i = 0; i < 6; i++) await h.t.runtime.worker.tick();
    const before = await Promise.all(steps.map(([from, to]) => read(from, to)));
    const order = await createOrder(h, {}, sandboxKey);
    assert.equal((await deposit(order.id, undefined)).statusCode, 200);
    await tickUntil(h, order.id, 'completed', 8, sandboxKey);
    for (const [i, [from, to]] of steps.entries()) {
      const now = await read(from, to);
      assert.equal(now.live, before[i]?.live, `live ${from}→${to} unchanged`);
      assert.equal(now.sandbox, (before[i]?.sandbox ?? 0) + 1, `sandbox ${from}→${to} counted once`);
    }

    // The expiry sweep moves live and sandbox orders in one batch: each counted in its own series.
    const expiredBefore = await read('waiting_deposit', 'expired');
    const db = h.t.db.handle.db;
    const waiting = async (sandbox: boolean) =>
      Number(
        (await db.selectFrom('orders').select((eb) => eb.fn.countAll<string>().as('n')).where('status', '=', 'waiting_deposit').where('sandbox', '=', sandbox).executeTakeFirstOrThrow()).n,
      );
    await createOrder(h, {}, sandboxKey);
    await createOrder(h);
    const [liveWaiting, sandboxWaiting] = [await waiting(false), await waiting(true)];
    assert.ok(liveWaiting > 0 && sandboxWaiting > 0);
    await advance(h, WINDOW_MS + 1000);
    await h.t.runtime.worker.sweepExpired();
    const expired = await read('waiting_deposit', 'expired');
    assert.equal(expired.live, expiredBefore.live + liveWaiting);
    assert.equal(expired.sandbox, expiredBefore.sandbox + sandboxWaiting);
  });
});
