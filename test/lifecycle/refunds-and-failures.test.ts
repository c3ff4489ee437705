import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Decimal } from '../../src/domain/money.js';
import type { TestApp } from '../helpers/test-app.js';
import {
  advance,
  assertDecimalEq,
  BTC_CONFIRMATIONS,
  BTC_REFUND,
  createOrder,
  depositAndRun,
  fixedQuote,
  getOrder,
  injectFault,
  metricValue,
  moves,
  orderEvents,
  payoutRows,
  sendRows,
  setConfirmations,
  simulateDeposit,
  simulatedTxid,
  startHarness,
  storedOrder,
  tickUntil,
  WINDOW_MS,
  type Harness,
  type OrderJson,
} from './lifecycle-helpers.js';

/**
 * Every way out of the happy path (docs/contract.md §4), driven through the partner API, the simulator
 * endpoints and worker passes. The tests share one app and run in order; each one leaves its
 * order in a final state, so no step of an earlier order can consume a later test's fault.
 */
describe('refunds and failures', () => {
  let h: Harness;
  let t: TestApp;
  before(async () => {
    // Refunds here proceed at once: the continue-or-refund hold has its own tests (order-actions.test.ts).
    h = await startHarness({ REFUND_HOLD_MINUTES: '0' });
    t = h.t;
  });

  /**
   * An order that must refund without a refund address waits in refunding for one (docs/contract.md §7.5):
   * nothing requested or sent, set_refund_address its one action, the worker leaves it alone;
   * once the partner sets the address, the refund is requested and sent.
   */
  async function assertWaitsForRefundAddress(order: OrderJson, reason: string): Promise<void> {
    const waiting = await getOrder(h, order.id);
    assert.equal(waiting.status, 'refunding');
    assert.equal(waiting.status_reason, reason);
    assert.deepEqual(waiting.actions, ['set_refund_address']);
    assert.equal(waiting.refund_txid, null);
    assert.equal(waiting.payout_txid, null);
    assert.deepEqual(await payoutRows(h, order.id), []);
    await t.runtime.worker.tick();
    assert.deepEqual(await sendRows(h, order.id), []);
    assert.equal((await getOrder(h, order.id)).status, 'refunding');
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/partner/orders/${order.id}/refund-address`,
      headers: { 'x-api-key': h.partner.apiKey, 'content-type': 'application/json' },
      payload: { refund_address: BTC_REFUND },
    });
    assert.equal(res.statusCode, 200, res.body);
    await tickUntil(h, order.id, 'refunded', 1);
    await assertRefunded(order, reason);
  }
  after(() => h.t.close());

  /** A refunding order's next pass sends the refund of what was received, to the refund address. */
  async function assertRefunded(order: OrderJson, reason: string): Promise<OrderJson> {
    const refunded = await getOrder(h, order.id);
    assert.equal(refunded.status, 'refunded');
    assert.equal(refunded.status_reason, reason);
    assert.equal(refunded.refund_txid, simulatedTxid(order.id, 'refund'));
    assert.equal(refunded.payout_txid, null);
    const payouts = await payoutRows(h, order.id);
    assert.equal(payouts.length, 1, JSON.stringify(payouts));
    const [refund] = payouts;
    assert.ok(refund !== undefined);
    assert.equal(refund.kind, 'refund');
    assert.equal(refund.status, 'sent');
    assert.equal(refund.chain, 'BTC');
    assert.equal(refund.address, BTC_REFUND);
    assert.equal(refund.txid, refunded.refund_txid);
    assertDecimalEq(refund.amount, refunded.amount_from_received ?? 'NaN', 'refund amount = received');
    const sends = await sendRows(h, order.id);
    assert.deepEqual(
      sends.map((send) => [send.idempotency_key, send.address, new Decimal(send.amount).toFixed()]),
      [[`${order.id}:refund`, BTC_REFUND, new Decimal(refund.amount).toFixed()]],
    );
    return refunded;
  }

  /** Deposit, confirmations reached, then the pass that runs the exchange step. */
  async function depositAndExchange(order: OrderJson, amount?: string): Promise<OrderJson> {
    await simulateDeposit(h, order.id, amount === undefined ? {} : { amount });
    await t.runtime.worker.tick();
    assert.equal((await getOrder(h, order.id)).status, 'confirming');
    await setConfirmations(h, order.id, BTC_CONFIRMATIONS);
    await t.runtime.worker.tick();
    return getOrder(h, order.id);
  }

  describe('fixed rate', () => {
    it('underpaid by 10% with a refund address → refunding → refunded (fixed_rate_mismatch), refund = received', async () => {
      const quoteId = await fixedQuote(h, '0.5');
      const order = await createOrder(h, { rate_type: 'fixed', quote_id: quoteId });
      assert.equal(order.rate_type, 'fixed');
      const short = new Decimal(order.amount_from_expected).times('0.9').toFixed();

      const refunding = await depositAndExchange(order, short);
      assert.equal(refunding.status, 'refunding');
      assert.equal(refunding.status_reason, 'fixed_rate_mismatch');
      assertDecimalEq(refunding.amount_from_received, short, 'amount_from_received');
      assert.equal(refunding.refund_txid, null);

      await tickUntil(h, order.id, 'refunded', 1);
      await assertRefunded(order, 'fixed_rate_mismatch');
      assert.deepEqual(await moves(h, order.id), [
        '∅→waiting_deposit',
        'waiting_deposit→confirming',
        'confirming→exchanging',
        'exchanging→refunding',
        'refunding→refunded',
      ]);
      const events = await orderEvents(h, order.id);
      assert.equal(events[3]?.reason, 'fixed_rate_mismatch');
      assert.equal((await storedOrder(h, order.id)).amount_to_final, null);
    });

    it('underpaid by 10% without a refund address → waits in refunding for one (fixed_rate_mismatch), then refunded', async () => {
      const quoteId = await fixedQuote(h, '0.5');
      const order = await createOrder(h, { rate_type: 'fixed', quote_id: quoteId, refund_address: null });
      await depositAndExchange(order, new Decimal(order.amount_from_expected).times('0.9').toFixed());
      await assertWaitsForRefundAddress(order, 'fixed_rate_mismatch');
      assert.deepEqual((await moves(h, order.id)).slice(-3), ['exchanging→refunding', 'refunding→refunding', 'refunding→refunded']);
    });

    it('within tolerance (0.3% short) → completed, paying received × the locked exact rate, rounded down', async () => {
      const quoteId = await fixedQuote(h, '0.5');
      const quote = t.runtime.quotes.openFixedQuote(quoteId);
      assert.ok(typeof quote === 'object', 'the quote_id opens');
      const order = await createOrder(h, { rate_type: 'fixed', quote_id: quoteId });
      const received = new Decimal(order.amount_from_expected).times('0.997');
      const completed = await depositAndRun(h, order.id, 'completed', { amount: received.toFixed() });

      // ETH has 18 decimals; the rate is the one locked by the quote, not today's price.
      const expected = received.times(quote.exactRate).toDecimalPlaces(18, Decimal.ROUND_DOWN);
      assert.ok(expected.lt(order.amount_to_expected), 'the payout is smaller than for the full amount');
      const [payout] = await payoutRows(h, order.id);
      assert.ok(payout !== undefined);
      assertDecimalEq(payout.amount, expected, 'payout amount');
      assertDecimalEq((await storedOrder(h, order.id)).amount_to_final, expected, 'amount_to_final');
      assert.equal(completed.payout_txid, simulatedTxid(order.id, 'payout'));
      assert.equal(completed.status_reason, null);
    });

    it('overpaid by 10% → refunding (fixed_rate_mismatch): the whole deposit goes back', async () => {
      const quoteId = await fixedQuote(h, '0.5');
      const order = await createOrder(h, { rate_type: 'fixed', quote_id: quoteId });
      const over = new Decimal(order.amount_from_expected).times('1.1').toFixed();
      const refunding = await depositAndExchange(order, over);
      assert.equal(refunding.status, 'refunding');
      await tickUntil(h, order.id, 'refunded', 1);
      const refunded = await assertRefunded(order, 'fixed_rate_mismatch');
      assertDecimalEq(refunded.amount_from_received, over, 'received');
    });
  });

  describe('float limits', () => {
    it('a deposit below the pair minimum → refunding (amount_below_min) → refunded', async () => {
      const order = await createOrder(h);
      const refunding = await depositAndExchange(order, '0.0001');
      assert.equal(refunding.status, 'refunding');
      assert.equal(refunding.status_reason, 'amount_below_min');
      await tickUntil(h, order.id, 'refunded', 1);
      const refunded = await assertRefunded(order, 'amount_below_min');
      assertDecimalEq(refunded.amount_from_received, '0.0001', 'received');
    });

    it('a deposit above the pair maximum → refunding (amount_above_max) → refunded', async () => {
      const order = await createOrder(h);
      const refunding = await depositAndExchange(order, '20');
      assert.equal(refunding.status, 'refunding');
      assert.equal(refunding.status_reason, 'amount_above_max');
      await tickUntil(h, order.id, 'refunded', 1);
      await assertRefunded(order, 'amount_above_max');
    });

    it('below the minimum without a refund address → waits in refunding for one (amount_below_min)', async () => {
      const order = await createOrder(h, { refund_address: null });
      await depositAndExchange(order, '0.0001');
      await assertWaitsForRefundAddress(order, 'amount_below_min');
    });
  });

  describe('exchange step', () => {
    it('a permanent exchange failure → refunding (exchange_failed) → refunded', async () => {
      const order = await createOrder(h);
      await injectFault(h, 'exchange', 1, true);
      const refunding = await depositAndExchange(order);
      assert.equal(refunding.status, 'refunding');
      assert.equal(refunding.status_reason, 'exchange_failed');
      await tickUntil(h, order.id, 'refunded', 1);
      await assertRefunded(order, 'exchange_failed');
      const events = await orderEvents(h, order.id);
      const failure = events.find((event) => event.to_status === 'refunding');
      assert.equal(failure?.reason, 'exchange_failed');
      assert.deepEqual(failure?.data, { error: 'simulated exchange failure' });
    });

    it('a transient exchange failure is retried after the backoff and the order completes', async () => {
      const order = await createOrder(h);
      await injectFault(h, 'exchange', 1, false);
      const retrying = await depositAndExchange(order);
      assert.equal(retrying.status, 'exchanging');
      const stored = await storedOrder(h, order.id);
      assert.equal(stored.attempts, 1);
      assert.equal(stored.locked_until, null);
      assert.ok(stored.next_attempt_at !== null);
      assert.equal(stored.next_attempt_at.getTime(), h.clock.now().getTime() + 2000, 'first backoff is 2 s');

      // Not due yet: a pass before next_attempt_at leaves it alone.
      await advance(h, 1999);
      await t.runtime.worker.tick();
      assert.equal((await getOrder(h, order.id)).status, 'exchanging');
      assert.equal((await storedOrder(h, order.id)).attempts, 1);

      await advance(h, 1);
      const statuses = await tickUntil(h, order.id, 'completed', 3);
      assert.deepEqual(statuses, ['sending', 'completed']);
      const completed = await getOrder(h, order.id);
      assert.equal(completed.status_reason, null);
      const [payout] = await payoutRows(h, order.id);
      assertDecimalEq(payout?.amount, order.amount_to_expected, 'payout amount');
      assert.equal((await sendRows(h, order.id)).length, 1);
      // A retry is not a transition: no audit row for it.
      assert.deepEqual(await moves(h, order.id), [
        '∅→waiting_deposit',
        'waiting_deposit→confirming',
        'confirming→exchanging',
        'exchanging→sending',
        'sending→completed',
      ]);
      const after = await storedOrder(h, order.id);
      assert.equal(after.attempts, 0);
      assert.equal(after.next_attempt_at, null);
    });
    it('five transient exchange failures in a row exhaust the retry budget → refunding (exchange_failed)', async () => {
      const order = await createOrder(h);
      await injectFault(h, 'exchange', 5, false);
      assert.equal((await depositAndExchange(order)).status, 'exchanging');
      // Backoff doubles: 2, 4, 8, 16 s; the fifth failed attempt gives up.
      for (const [attempt, delay] of [[1, 2000], [2, 4000], [3, 8000], [4, 16_000]] as const) {
        const stored = await storedOrder(h, order.id);
        assert.equal(stored.attempts, attempt);
        assert.equal(stored.next_attempt_at?.getTime(), h.clock.now().getTime() + delay, `backoff after attempt ${attempt}`);
        await advance(h, delay);
        await t.runtime.worker.tick();
      }
      const refunding = await getOrder(h, order.id);
      assert.equal(refunding.status, 'refunding');
      assert.equal(refunding.status_reason, 'exchange_failed');
      await tickUntil(h, order.id, 'refunded', 1);
      await assertRefunded(order, 'exchange_failed');
      const left = await t.db.handle.db.selectFrom('simulator_faults').selectAll().where('step', '=', 'exchange').executeTakeFirst();
      assert.equal(left?.remaining, 0, 'exactly five attempts were made');
    });
  });

  describe('payout step', () => {
    it('a permanent payout failure → failed (payout_failed), counted in payout_failures_total', async () => {
      const before = (await metricValue(h, 'payout_failures_total{kind="payout"}')) ?? 0;
      const order = await createOrder(h);
      const sending = await depositAndExchange(order);
      assert.equal(sending.status, 'sending');
      await injectFault(h, 'payout', 1, true);
      await t.runtime.worker.tick();
      const failed = await getOrder(h, order.id);
      assert.equal(failed.status, 'failed');
      assert.equal(failed.status_reason, 'payout_failed');
      assert.equal(failed.payout_txid, null);
      const payouts = await payoutRows(h, order.id);
      assert.equal(payouts.length, 1);
      assert.equal(payouts[0]?.kind, 'payout');
      assert.equal(payouts[0]?.status, 'failed');
      assert.equal(payouts[0]?.txid, null);
      assert.deepEqual(await sendRows(h, order.id), []);
      assert.equal((await moves(h, order.id)).at(-1), 'sending→failed');
      assert.equal(await metricValue(h, 'payout_failures_total{kind="payout"}'), before + 1);
    });

    it('a transient payout failure is retried with the same key and completes with one send', async () => {
      const before = (await metricValue(h, 'payout_failures_total{kind="payout"}')) ?? 0;
      const order = await createOrder(h);
      assert.equal((await depositAndExchange(order)).status, 'sending');
      await injectFault(h, 'payout', 1, false);
      await t.runtime.worker.tick();
      assert.equal((await getOrder(h, order.id)).status, 'sending');
      assert.equal((await storedOrder(h, order.id)).attempts, 1);
      assert.deepEqual(await sendRows(h, order.id), []);
      assert.equal(await metricValue(h, 'payout_failures_total{kind="payout"}'), before + 1);
      await advance(h, 2000);
      await tickUntil(h, order.id, 'completed', 1);
      assert.equal((await sendRows(h, order.id)).length, 1);
      assert.equal((await payoutRows(h, order.id))[0]?.status, 'sent');
    });

    it('a failing refund is never given up: it stays refunding and is retried until sent', async () => {
      const before = (await metricValue(h, 'payout_failures_total{kind="refund"}')) ?? 0;
      const order = await createOrder(h);
      await injectFault(h, 'refund', 2, true);
      assert.equal((await depositAndExchange(order, '0.0001')).status, 'refunding');
      await t.runtime.worker.tick();
      assert.equal((await getOrder(h, order.id)).status, 'refunding');
      await advance(h, 2000);
      await t.runtime.worker.tick();
      const stored = await storedOrder(h, order.id);
      assert.equal(stored.status, 'refunding', 'even a permanent refund failure is retried');
      assert.equal(stored.attempts, 2);
      assert.equal(await metricValue(h, 'payout_failures_total{kind="refund"}'), before + 2);
      await advance(h, 4000);
      await tickUntil(h, order.id, 'refunded', 1);
      await assertRefunded(order, 'amount_below_min');
    });
  });

  describe('operator', () => {
    it('POST /admin/v1/orders/{id}/fail fails a non-final order with status_reason operator and an audit row', async () => {
      const order = await createOrder(h);
      const res = await t.admin('POST', `/admin/v1/orders/${order.id}/fail`, { reason: 'customer asked to cancel' });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json<{ id: string; status: string; status_reason: string }>();
      assert.equal(body.id, order.id);
      assert.equal(body.status, 'failed');
      assert.equal(body.status_reason, 'operator');

      const seen = await getOrder(h, order.id);
      assert.equal(seen.status, 'failed');
      assert.equal(seen.status_reason, 'operator');
      const events = await orderEvents(h, order.id);
      assert.equal(events.length, 2);
      const last = events.at(-1);
      assert.equal(last?.from_status, 'waiting_deposit');
      assert.equal(last?.to_status, 'failed');
      assert.equal(last?.reason, 'operator');
      assert.deepEqual(last?.data, { note: 'customer asked to cancel' });

      // Failed is final: a second operator fail is a conflict.
      const again = await t.admin('POST', `/admin/v1/orders/${order.id}/fail`, { reason: 'twice' });
      assert.equal(again.statusCode, 409, again.body);
      assert.equal((await orderEvents(h, order.id)).length, 2);
    });

    it('operator fail of an order in sending stops the payout', async () => {
      const order = await createOrder(h);
      assert.equal((await depositAndExchange(order)).status, 'sending');
      const res = await t.admin('POST', `/admin/v1/orders/${order.id}/fail`, { reason: 'compliance hold' });
      assert.equal(res.statusCode, 200, res.body);
      await t.runtime.worker.tick();
      const failed = await getOrder(h, order.id);
      assert.equal(failed.status, 'failed');
      assert.equal(failed.payout_txid, null);
      assert.deepEqual(await sendRows(h, order.id), []);
    });

    it('operator fail of a completed order → 409 and the order is unchanged', async () => {
      const order = await createOrder(h);
      await depositAndRun(h, order.id, 'completed');
      const version = (await storedOrder(h, order.id)).version;
      const res = await t.admin('POST', `/admin/v1/orders/${order.id}/fail`, { reason: 'too late' });
      assert.equal(res.statusCode, 409, res.body);
      assert.equal(res.json<{ code: string }>().code, 'conflict');
      const stored = await storedOrder(h, order.id);
      assert.equal(stored.status, 'completed');
      assert.equal(stored.status_reason, null);
      assert.equal(stored.version, version);
    });

    it('operator fail of an unknown order → 404', async () => {
      const res = await t.admin('POST', '/admin/v1/orders/00000000-0000-4000-8000-000000000000/fail', { reason: 'x' });
      assert.equal(res.statusCode, 404, res.body);
    });
  });

  // Last: these move the clock past the deposit window of every order made so far.
  describe('late deposits', () => {
    it('a deposit to an expired order with a refund address → refunding (late_deposit) → refunded', async () => {
      const order = await createOrder(h);
      await advance(h, WINDOW_MS + 1000);
      assert.equal((await getOrder(h, order.id)).status, 'expired');
      await simulateDeposit(h, order.id, { txid: 'cd'.repeat(32) });
      // One pass: the sweep expires it, the watcher's late deposit moves it to refunding, and the
      // due step of the same pass already sends the refund.
      await tickUntil(h, order.id, 'refunded', 2);
      const refunded = await assertRefunded(order, 'late_deposit');
      assert.equal(refunded.deposit_txid, 'cd'.repeat(32));
      assertDecimalEq(refunded.amount_from_received, order.amount_from_expected, 'received');
      const late = (await orderEvents(h, order.id)).find((event) => event.from_status === 'expired');
      assert.equal(late?.to_status, 'refunding');
      assert.equal(late?.reason, 'late_deposit');
      assert.deepEqual(late?.data, { txid: 'cd'.repeat(32) });
      assert.deepEqual(await moves(h, order.id), [
        '∅→waiting_deposit',
        'waiting_deposit→expired',
        'expired→refunding',
        'refunding→refunded',
      ]);
    });

    it('a deposit to an expired order without a refund address → waits in refunding for one (late_deposit)', async () => {
      const order = await createOrder(h, { refund_address: null });
      await advance(h, WINDOW_MS + 1000);
      await simulateDeposit(h, order.id);
      await t.runtime.worker.tick();
      await assertWaitsForRefundAddress(order, 'late_deposit');
      assert.deepEqual(await moves(h, order.id), [
        '∅→waiting_deposit',
        'waiting_deposit→expired',
        'expired→refunding',
        'refunding→refunding',
        'refunding→refunded',
      ]);
    });
  });
});
