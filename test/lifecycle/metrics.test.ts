import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/test-app.js';
import {
  advance,
  createOrder,
  depositAndRun,
  injectFault,
  metricValue,
  setConfirmations,
  simulateDeposit,
  startHarness,
  WINDOW_MS,
  type Harness,
} from './lifecycle-helpers.js';

describe('lifecycle metrics on /metrics', () => {
  let h: Harness;
  let t: TestApp;
  before(async () => {
    h = await startHarness();
    t = h.t;
  });
  after(() => h.t.close());

  it('orders_by_status counts every status from the database, zeros included', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /^# TYPE orders_by_status gauge$/m);
    for (const status of ['waiting_deposit', 'confirming', 'exchanging', 'sending', 'completed', 'expired', 'refunding', 'refunded', 'failed']) {
      assert.equal(await metricValue(h, `orders_by_status{status="${status}"}`), 0, status);
    }
    // No pass has run in this process yet (WORKER=off): no lag is exported (issue 36.2: it read 0 forever).
    assert.equal(await metricValue(h, 'worker_lag_seconds'), undefined);
    await t.runtime.worker.tick();
    assert.equal(await metricValue(h, 'worker_lag_seconds'), 0);
  });

  it('a completed order shows in orders_by_status and order_transitions_total', async () => {
    const { id } = await createOrder(h);
    await createOrder(h);
    assert.equal(await metricValue(h, 'orders_by_status{status="waiting_deposit"}'), 2);
    await depositAndRun(h, id, 'completed');

    assert.equal(await metricValue(h, 'orders_by_status{status="completed"}'), 1);
    assert.equal(await metricValue(h, 'orders_by_status{status="waiting_deposit"}'), 1);
    for (const [from, to] of [
      ['waiting_deposit', 'confirming'],
      ['confirming', 'exchanging'],
      ['exchanging', 'sending'],
      ['sending', 'completed'],
    ] as const) {
      assert.equal(await metricValue(h, `order_transitions_total{from="${from}",to="${to}"}`), 1, `${from}→${to}`);
    }
    assert.equal(await metricValue(h, 'worker_lag_seconds'), 0, 'nothing is due');
  });

  it('the sweep counts its expiries as transitions', async () => {
    await advance(h, WINDOW_MS);
    await t.runtime.worker.tick();
    assert.equal(await metricValue(h, 'order_transitions_total{from="waiting_deposit",to="expired"}'), 1);
    assert.equal(await metricValue(h, 'orders_by_status{status="expired"}'), 1);
    assert.equal(await metricValue(h, 'orders_by_status{status="waiting_deposit"}'), 0);
  });

  it('worker_lag_seconds is the age of the oldest due step that has not run', async () => {
    const { id } = await createOrder(h);
    await simulateDeposit(h, id);
    await t.runtime.worker.tick();
    // The exchange fails once (retry due in 2 s); then a worker leases the order and dies.
    await injectFault(h, 'exchange', 1, false);
    await setConfirmations(h, id, 2);
    await t.runtime.worker.tick();
    const due = await t.db.handle.db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(due.status, 'exchanging');
    assert.equal(due.next_attempt_at?.getTime(), h.clock.now().getTime() + 2000);
    await t.db.handle.db
      .updateTable('orders')
      .set({ locked_until: new Date(h.clock.now().getTime() + 60_000) })
      .where('id', '=', id)
      .execute();

    // Due since 2 s after the failure; 7 s later the step has waited 5 s.
    await advance(h, 7000);
    await t.runtime.worker.tick();
    assert.equal(await metricValue(h, 'worker_lag_seconds'), 5);

    await advance(h, 60_000);
    await t.runtime.worker.tick();
    await t.runtime.worker.tick();
    assert.equal(await metricValue(h, 'worker_lag_seconds'), 0, 'caught up');
    assert.equal(await metricValue(h, 'orders_by_status{status="completed"}'), 2);
  });

  it('a scrape reads cached gauges: no database query, and orders_by_status changes only when recounted', async (ctx) => {
    const scrape = async () => {
      const res = await t.app.inject({ method: 'GET', url: '/metrics' });
      assert.equal(res.statusCode, 200);
      const line = res.body.split('\n').find((text) => text.startsWith('orders_by_status{status="waiting_deposit"} '));
      return Number(line?.split(' ').at(-1));
    };
    const before = await scrape();
    await createOrder(h);
    const executeQuery = ctx.mock.method(t.db.handle.db.getExecutor(), 'executeQuery');
    for (let i = 0; i < 20; i++) assert.equal(await scrape(), before, 'counted before the order: the timer has not run since');
    assert.equal(executeQuery.mock.callCount(), 0, 'scrapes must not query the database');
    await t.runtime.orderStatusGauge.refresh();
    assert.equal(await scrape(), before + 1);
  });
});
