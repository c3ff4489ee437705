import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/test-app.js';
import { createOrder, getOrder, moves, orderEvents, startHarness, storedOrder, WINDOW_MS, type Harness } from './lifecycle-helpers.js';

describe('expiry: by read, then by sweep', () => {
  let h: Harness;
  let t: TestApp;
  before(async () => {
    h = await startHarness();
    t = h.t;
  });
  after(() => h.t.close());

  /** Sets the clock and re-polls prices, so orders can still be created at the new time. */
  const setClock = async (ms: number): Promise<void> => {
    h.clock.set(new Date(ms));
    await t.runtime.prices.refresh();
  };

  it('an order left alone reads expired after 30 minutes before any sweep; the sweep then stores it once', async () => {
    const order = await createOrder(h);
    const created = new Date(order.created_at as string).getTime();
    assert.equal(new Date(order.expires_at).getTime(), created + WINDOW_MS);

    // One millisecond before the deadline it is still open.
    h.clock.set(new Date(created + WINDOW_MS - 1));
    assert.equal((await getOrder(h, order.id)).status, 'waiting_deposit');
    assert.equal(await t.runtime.worker.sweepExpired(), 0);

    // At expires_at it reads expired, while the stored row has not moved yet.
    h.clock.set(new Date(created + WINDOW_MS));
    assert.equal((await getOrder(h, order.id)).status, 'expired');
    const before = await storedOrder(h, order.id);
    assert.equal(before.status, 'waiting_deposit');
    assert.equal((await orderEvents(h, order.id)).length, 1);
    const adminView = await t.admin('GET', `/admin/v1/orders/${order.id}`);
    assert.equal(adminView.statusCode, 200, adminView.body);
    const view = adminView.json<{ status: string; stored_status: string }>();
    assert.equal(view.status, 'expired');
    assert.equal(view.stored_status, 'waiting_deposit');

    h.clock.advance(60_000);
    assert.equal(await t.runtime.worker.sweepExpired(), 1);
    const swept = await storedOrder(h, order.id);
    assert.equal(swept.status, 'expired');
    assert.equal(swept.version, before.version + 1);
    assert.equal(swept.updated_at.getTime(), h.clock.now().getTime());
    assert.deepEqual(await moves(h, order.id), ['∅→waiting_deposit', 'waiting_deposit→expired']);
    const expiredEvent = (await orderEvents(h, order.id)).at(-1);
    assert.equal(expiredEvent?.reason, 'time_limit');
    assert.equal(expiredEvent.created_at.getTime(), h.clock.now().getTime());
    assert.equal((await getOrder(h, order.id)).status, 'expired');

    // Idempotent: a second sweep (and a full pass) changes nothing.
    h.clock.advance(60_000);
    assert.equal(await t.runtime.worker.sweepExpired(), 0);
    await t.runtime.worker.tick();
    const again = await storedOrder(h, order.id);
    assert.equal(again.status, 'expired');
    assert.equal(again.version, swept.version);
    assert.equal((await orderEvents(h, order.id)).length, 2);
  });

  it('the sweep moves every overdue order in one statement and leaves younger ones', async () => {
    const start = h.clock.now().getTime() + 1000;
    await setClock(start);
    const old1 = await createOrder(h);
    const old2 = await createOrder(h);
    await setClock(start + 10 * 60_000);
    const young = await createOrder(h);
    await setClock(start + WINDOW_MS + 1);

    assert.equal(await t.runtime.worker.sweepExpired(), 2);
    assert.equal((await storedOrder(h, old1.id)).status, 'expired');
    assert.equal((await storedOrder(h, old2.id)).status, 'expired');
    assert.equal((await storedOrder(h, young.id)).status, 'waiting_deposit');
    assert.equal((await getOrder(h, young.id)).status, 'waiting_deposit');
    assert.equal(await t.runtime.worker.sweepExpired(), 0);
  });

  it('an expired order is refused further moves: operator fail → 409', async () => {
    await setClock(h.clock.now().getTime() + 1000);
    const order = await createOrder(h);
    h.clock.advance(WINDOW_MS);
    await t.runtime.worker.sweepExpired();
    const res = await t.admin('POST', `/admin/v1/orders/${order.id}/fail`, { reason: 'no' });
    assert.equal(res.statusCode, 409, res.body);
    assert.equal((await storedOrder(h, order.id)).status, 'expired');
  });

  it('an order that reads expired (before the sweep) is final too: operator fail → 409', async () => {
    await setClock(h.clock.now().getTime() + 1000);
    const order = await createOrder(h);
    h.clock.advance(WINDOW_MS);
    assert.equal((await getOrder(h, order.id)).status, 'expired');
    assert.equal((await storedOrder(h, order.id)).status, 'waiting_deposit');
    const res = await t.admin('POST', `/admin/v1/orders/${order.id}/fail`, { reason: 'cleanup' });
    assert.equal(res.statusCode, 409, res.body);
    const read = await getOrder(h, order.id);
    assert.equal(read.status, 'expired');
    assert.equal(read.status_reason, null);
    assert.equal((await orderEvents(h, order.id)).length, 1);
    assert.equal(await t.runtime.worker.sweepExpired(), 1);
    assert.equal((await storedOrder(h, order.id)).status, 'expired');
  });
});
