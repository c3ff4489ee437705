import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cabinetPerson } from '../helpers/cabinet-client.js';
import { ManualClock } from '../helpers/test-app.js';
import { BTC_REFUND, createOrder, startHarness, type Harness, type OrderJson } from '../lifecycle/lifecycle-helpers.js';

/**
 * Modes (docs/contract.md §10.2, issue 26.4): a key sees and acts on its own mode's orders only; the
 * other mode's ids answer 404 exactly as another partner's do, and nothing changes. The list
 * and /partner/stats follow the key's mode. Every partner action's audit row names the key.
 */
describe('a key reaches its own mode\'s orders only', () => {
  let h: Harness;
  let sandboxKey: string;
  let sandboxKeyId: string;
  let live: OrderJson;
  let sandbox: OrderJson;
  before(async () => {
    h = await startHarness({}, new ManualClock());
    const issued = await h.t.admin('POST', `/admin/v1/partners/${h.partner.id}/keys`, { sandbox: true });
    assert.equal(issued.statusCode, 201, issued.body);
    ({ api_key: sandboxKey, key_id: sandboxKeyId } = issued.json<{ api_key: string; key_id: string }>());
    live = await createOrder(h);
    sandbox = await createOrder(h, {}, sandboxKey);
    assert.equal(live.sandbox, false);
    assert.equal(sandbox.sandbox, true);
  });
  after(() => h.t.close());

  const call = (apiKey: string, method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
    h.t.app.inject({
      method,
      url: `/api/v1/partner${url}`,
      headers: { 'x-api-key': apiKey, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  const stored = (id: string) =>
    h.t.db.handle.db.selectFrom('orders').select(['status', 'refund_address', 'version']).where('id', '=', id).executeTakeFirstOrThrow();
  const NOT_FOUND = { detail: 'order not found', code: 'not_found', errors: [{ code: 'not_found', field: null, detail: 'order not found' }] };

  it('reads, QR codes and acts on the other mode\'s order answer 404, by id and short id, and change nothing', async () => {
    for (const [key, order] of [
      [sandboxKey, live],
      [h.partner.apiKey, sandbox],
    ] as const) {
      const before = await stored(order.id);
      for (const id of [order.id, order.short_id.toLowerCase()]) {
        for (const [method, url, body] of [
          ['GET', `/orders/${id}`, undefined],
          ['GET', `/orders/${id}/qr.svg`, undefined],
          ['PUT', `/orders/${id}/refund-address`, { refund_address: BTC_REFUND }],
          ['POST', `/orders/${id}/cancel`, {}],
          ['POST', `/orders/${id}/refund`, {}],
          ['POST', `/orders/${id}/continue`, {}],
        ] as const) {
          const res = await call(key, method, url, body);
          assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`);
          assert.deepEqual(res.json(), NOT_FOUND);
        }
      }
      assert.deepEqual(await stored(order.id), before);
    }
    // Its own mode's order: found.
    assert.equal((await call(sandboxKey, 'GET', `/orders/${sandbox.id}`)).statusCode, 200);
    assert.equal((await call(h.partner.apiKey, 'GET', `/orders/${live.id}`)).statusCode, 200);
  });

  it('lists its own mode\'s orders only; asking for the other mode is a 400', async () => {
    const ids = async (key: string, query = '') => {
      const res = await call(key, 'GET', `/orders?limit=100${query}`);
      assert.equal(res.statusCode, 200, res.body);
      return res.json<{ orders: { id: string; sandbox: boolean }[] }>().orders;
    };
    const sandboxListed = await ids(sandboxKey);
    assert.ok(sandboxListed.some((order) => order.id === sandbox.id));
    assert.ok(sandboxListed.every((order) => order.sandbox), 'no live order in a sandbox key\'s list');
    assert.deepEqual(await ids(sandboxKey, '&sandbox=true'), sandboxListed);
    const liveListed = await ids(h.partner.apiKey);
    assert.ok(liveListed.some((order) => order.id === live.id));
    assert.ok(liveListed.every((order) => !order.sandbox));
    // Search by the other mode's id finds nothing.
    assert.deepEqual(await ids(sandboxKey, `&search=${live.id}`), []);
    for (const [key, query] of [
      [sandboxKey, '&sandbox=false'],
      [h.partner.apiKey, '&sandbox=true'],
    ] as const) {
      const res = await call(key, 'GET', `/orders?limit=5${query}`);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json<{ code: string }>().code, 'bad_request');
    }
  });

  it('/partner/stats counts the key\'s mode', async () => {
    const waiting = async (key: string) => {
      const res = await call(key, 'GET', '/stats');
      assert.equal(res.statusCode, 200, res.body);
      return res.json<{ orders_by_status: Record<string, number> }>().orders_by_status.waiting_deposit;
    };
    const count = async (isSandbox: boolean) =>
      Number(
        (
          await h.t.db.handle.db
            .selectFrom('orders')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('partner_id', '=', h.partner.id)
            .where('sandbox', '=', isSandbox)
            .where('status', '=', 'waiting_deposit')
            .executeTakeFirstOrThrow()
        ).n,
      );
    await createOrder(h, {}, sandboxKey);
    assert.equal(await waiting(sandboxKey), await count(true));
    assert.equal(await waiting(h.partner.apiKey), await count(false));
    assert.notEqual(await count(true), await count(false));
  });

  it('the audit rows of creation and of each action name the key that made them', async () => {
    const order = await createOrder(h, {}, sandboxKey);
    const changed = await call(sandboxKey, 'PUT', `/orders/${order.id}/refund-address`, { refund_address: BTC_REFUND });
    assert.equal(changed.statusCode, 200, changed.body);
    const cancelled = await call(sandboxKey, 'POST', `/orders/${order.id}/cancel`, {});
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    const rows = await h.t.db.handle.db
      .selectFrom('order_events')
      .select(['to_status', 'actor', 'actor_key_id', 'actor_user_id'])
      .where('order_id', '=', order.id)
      .orderBy('order_version')
      .execute();
    assert.deepEqual(rows, [
      { to_status: 'waiting_deposit', actor: 'partner', actor_key_id: sandboxKeyId, actor_user_id: null },
      { to_status: 'waiting_deposit', actor: 'partner', actor_key_id: sandboxKeyId, actor_user_id: null },
      { to_status: 'expired', actor: 'partner', actor_key_id: sandboxKeyId, actor_user_id: null },
    ]);
    // The operator reads who made each move in the order's trail.
    const trail = await h.t.admin('GET', `/admin/v1/orders/${order.id}`);
    assert.equal(trail.statusCode, 200, trail.body);
    assert.deepEqual(
      trail.json<{ events: { actor: string; actor_key_id: string | null }[] }>().events.map((event) => [event.actor, event.actor_key_id]),
      [['partner', sandboxKeyId], ['partner', sandboxKeyId], ['partner', sandboxKeyId]],
    );
    const liveOrder = await createOrder(h);
    assert.equal((await call(h.partner.apiKey, 'POST', `/orders/${liveOrder.id}/cancel`, {})).statusCode, 200);
    const liveRows = await h.t.db.handle.db.selectFrom('order_events').select(['actor', 'actor_key_id']).where('order_id', '=', liveOrder.id).execute();
    assert.deepEqual(liveRows, [
      { actor: 'partner', actor_key_id: h.partner.keyId },
      { actor: 'partner', actor_key_id: h.partner.keyId },
    ]);
  });

  it('a cabinet person reaches both modes\' orders, and its actions are recorded with the person', async () => {
    const { client } = await cabinetPerson(h.t, { email: 'audit@example.com', password: 'correct horse battery staple 26', partnerId: h.partner.id });
    const order = await createOrder(h, {}, sandboxKey);
    assert.equal((await client.get(`/cabinet/orders/${live.id}`)).statusCode, 200);
    assert.equal((await client.get(`/cabinet/orders/${order.id}`)).statusCode, 200);
    const cancelled = await client.post(`/cabinet/orders/${order.id}/actions/cancel`, {});
    assert.equal(cancelled.statusCode, 303, cancelled.body);
    const person = await h.t.db.handle.db.selectFrom('cabinet_users').select('id').where('email', '=', 'audit@example.com').executeTakeFirstOrThrow();
    const rows = await h.t.db.handle.db
      .selectFrom('order_events')
      .select(['to_status', 'actor', 'actor_key_id', 'actor_user_id'])
      .where('order_id', '=', order.id)
      .orderBy('order_version')
      .execute();
    assert.deepEqual(rows.at(-1), { to_status: 'expired', actor: 'partner', actor_key_id: null, actor_user_id: person.id });
  });

  it('the database refuses a partner\'s audit row that names neither a key nor a person', async () => {
    await assert.rejects(
      h.t.db.handle.db
        .insertInto('order_events')
        .values({ order_id: live.id, from_status: 'waiting_deposit', to_status: 'waiting_deposit', reason: 'x', data: null, order_version: 99, actor: 'partner', created_at: new Date() })
        .execute(),
      /order_events_partner_actor_check/,
    );
  });
});
