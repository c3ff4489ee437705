import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { advance, createOrder, simulateDeposit, startHarness, type Harness } from '../lifecycle/lifecycle-helpers.js';

/**
 * The gauges the dashboard and service-alerts.yml read that are counted, not incremented:
 * stuck orders (orders_unchanged_seconds), pool levels (deposit_address_pool_available) and the
 * price feeds' age (price_feed_age_seconds), as the app's clock and database say.
 */
describe('stuck orders, pool levels and price age on /metrics', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.t.close());

  async function value(series: string): Promise<number | undefined> {
    await h.t.runtime.backlogGauges.refresh();
    const res = await h.t.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(res.statusCode, 200);
    const line = res.body.split('\n').find((text) => text.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  }

  it('orders_unchanged_seconds: 0 with no order in a moving status, then the age of the one unchanged longest', async () => {
    for (const status of ['confirming', 'exchanging', 'sending', 'refunding']) assert.equal(await value(`orders_unchanged_seconds{status="${status}"}`), 0, status);
    // waiting_deposit waits for the end user, not for us: never counted as stuck.
    assert.equal(await value('orders_unchanged_seconds{status="waiting_deposit"}'), undefined);
    const first = await createOrder(h);
    await simulateDeposit(h, first.id);
    await h.t.runtime.worker.tick();
    await advance(h, 600_000);
    const second = await createOrder(h);
    await simulateDeposit(h, second.id);
    await h.t.runtime.worker.tick();
    await advance(h, 60_000);
    assert.equal(await value('orders_unchanged_seconds{status="confirming"}'), 660);
    assert.equal(await value('orders_unchanged_seconds{status="sending"}'), 0);
  });

  it('deposit_address_pool_available: the free addresses of each pool chain, one fewer per order that takes one', async () => {
    const before = await value('deposit_address_pool_available{chain="SOL"}');
    assert.ok(before !== undefined && before > 0, String(before));
    await createOrder(h, { coin_from: 'SOL', network_from: 'SOL', amount_from: '10', refund_address: null });
    assert.equal(await value('deposit_address_pool_available{chain="SOL"}'), before - 1);
    // A chain whose addresses are derived has no pool, and no series.
    assert.equal(await value('deposit_address_pool_available{chain="BTC"}'), undefined);
  });

  it('price_feed_age_seconds: since the newest observation of each symbol, growing while no poll comes', async () => {
    await h.t.runtime.prices.refresh();
    assert.equal(await value('price_feed_age_seconds{symbol="BTC"}'), 0);
    h.clock.advance(90_000);
    assert.equal(await value('price_feed_age_seconds{symbol="BTC"}'), 90);
    await h.t.runtime.prices.refresh();
    assert.equal(await value('price_feed_age_seconds{symbol="BTC"}'), 0);
  });
});
