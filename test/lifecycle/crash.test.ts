import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Decimal } from '../../src/domain/money.js';
import type { PayoutRequest, PayoutSender } from '../../src/chains/adapters.js';
import { SimulatedExchanger } from '../../src/chains/simulator/simulated-exchanger.js';
import { SimulatedPayoutSender } from '../../src/chains/simulator/simulated-payout-sender.js';
import { createMetrics } from '../../src/metrics.js';
import { LifecycleWorker } from '../../src/worker/lifecycle-worker.js';
import type { TestApp } from '../helpers/test-app.js';
import {
  advance,
  BTC_CONFIRMATIONS,
  createOrder,
  getOrder,
  moves,
  payoutRows,
  sendRows,
  setConfirmations,
  simulateDeposit,
  simulatedTxid,
  startHarness,
  storedOrder,
  type Harness,
} from './lifecycle-helpers.js';

const LEASE_MS = 30_000;

/**
 * A worker that dies in the middle of a step. Another worker (the app's own) must finish the
 * order once the dead one's lease has run out, without paying twice.
 */
describe('crash between steps', () => {
  let h: Harness;
  let t: TestApp;
  before(async () => {
    h = await startHarness();
    t = h.t;
  });
  after(() => h.t.close());

  /** A second worker on the same database whose payout sender is `payouts`. */
  function workerWith(payouts: PayoutSender): LifecycleWorker {
    const db = t.db.handle.db;
    return new LifecycleWorker({
      db,
      lifecycle: t.runtime.lifecycle,
      catalog: t.runtime.catalog,
      quotes: t.runtime.quotes,
      prices: t.runtime.prices,
      watchers: [],
      exchanger: new SimulatedExchanger(db),
      payouts,
      sandbox: { watcher: { name: 'none', watches: () => false, poll: () => Promise.resolve([]) }, exchanger: new SimulatedExchanger(db), payouts },
      clock: h.clock,
      metrics: createMetrics(),
      logger: { error: () => undefined, warn: () => undefined, info: () => undefined },
      settings: {
        fixedTolerancePct: new Decimal('0.5'),
        leaseMs: LEASE_MS,
        maxAttempts: 5,
        baseBackoffMs: 2000,
        batchSize: 20,
        intervalMs: 1000,
        refundHoldMinutes: 30,
      },
    });
  }

  /** An order in `sending`, its payout requested and not yet sent. */
  async function orderInSending(): Promise<string> {
    const { id } = await createOrder(h);
    await simulateDeposit(h, id);
    await t.runtime.worker.tick();
    await setConfirmations(h, id, BTC_CONFIRMATIONS);
    await t.runtime.worker.tick();
    assert.equal((await getOrder(h, id)).status, 'sending');
    assert.deepEqual(await sendRows(h, id), []);
    return id;
  }

  async function assertCompletedOnce(id: string): Promise<void> {
    const order = await getOrder(h, id);
    assert.equal(order.status, 'completed');
    assert.equal(order.payout_txid, simulatedTxid(id, 'payout'));
    const sends = await sendRows(h, id);
    assert.equal(sends.length, 1, JSON.stringify(sends));
    assert.equal(sends[0]?.txid, order.payout_txid);
    const payouts = await payoutRows(h, id);
    assert.equal(payouts.length, 1);
    assert.equal(payouts[0]?.status, 'sent');
    assert.equal(payouts[0]?.txid, order.payout_txid);
    assert.equal((await moves(h, id)).filter((move) => move === 'sending→completed').length, 1);
    const stored = await storedOrder(h, id);
    assert.equal(stored.locked_until, null);
    assert.equal(stored.attempts, 0);
  }

  it('an order leased by a worker that died is left alone until the lease runs out, then completed', async () => {
    const id = await orderInSending();
    // The dead worker's lease, as its claim would have written it.
    await t.db.handle.db
      .updateTable('orders')
      .set({ locked_until: new Date(h.clock.now().getTime() + LEASE_MS) })
      .where('id', '=', id)
      .execute();

    await t.runtime.worker.tick();
    await advance(h, LEASE_MS - 1);
    await t.runtime.worker.tick();
    assert.equal((await getOrder(h, id)).status, 'sending', 'the lease is respected');
    assert.deepEqual(await sendRows(h, id), []);

    await advance(h, 2);
    await t.runtime.worker.tick();
    await assertCompletedOnce(id);
  });

  it('a worker that dies after the payout went out: the next worker reuses the idempotency key, one send', async () => {
    const id = await orderInSending();
    const real = new SimulatedPayoutSender(t.db.handle.db, () => h.clock.now());
    let sent!: () => void;
    const sentSignal = new Promise<void>((resolve) => (sent = resolve));
    const keys: string[] = [];
    const dying = workerWith({
      async send(request: PayoutRequest) {
        keys.push(request.idempotencyKey);
        await real.send(request);
        sent();
        // The process is gone: the step never returns, nothing after the send is recorded.
        return new Promise<never>(() => undefined);
      },
    });
    void dying.tick();
    await sentSignal;
    assert.deepEqual(keys, [`${id}:payout`]);
    assert.equal((await sendRows(h, id)).length, 1, 'the coins went out');
    const leased = await storedOrder(h, id);
    assert.equal(leased.status, 'sending');
    assert.equal(leased.payout_txid, null);
    assert.ok(leased.locked_until !== null && leased.locked_until > h.clock.now(), 'the dead worker holds the lease');

    // Within the lease the survivor does not touch it.
    await t.runtime.worker.tick();
    assert.equal((await getOrder(h, id)).status, 'sending');

    await advance(h, LEASE_MS + 1);
    await t.runtime.worker.tick();
    await assertCompletedOnce(id);
  });

  it('a send that succeeds and then throws is retried after the backoff with the same key: one send', async () => {
    const id = await orderInSending();
    const real = new SimulatedPayoutSender(t.db.handle.db, () => h.clock.now());
    const flaky = workerWith({
      async send(request: PayoutRequest) {
        await real.send(request);
        throw new Error('connection reset after the broadcast');
      },
    });
    await flaky.tick();
    const retrying = await storedOrder(h, id);
    assert.equal(retrying.status, 'sending');
    assert.equal(retrying.attempts, 1);
    assert.equal(retrying.locked_until, null);
    assert.equal(retrying.next_attempt_at?.getTime(), h.clock.now().getTime() + 2000);
    assert.equal((await sendRows(h, id)).length, 1);

    await t.runtime.worker.tick();
    assert.equal((await getOrder(h, id)).status, 'sending', 'not due before the backoff');
    await advance(h, 2000);
    await t.runtime.worker.tick();
    await assertCompletedOnce(id);
  });
});
