// test-direct: postgres
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/test-app.js';
import {
  assertDecimalEq,
  BTC_CONFIRMATIONS,
  createOrder,
  ETH_RECIPIENT,
  getOrder,
  moves,
  orderEvents,
  payoutRows,
  sendRows,
  setConfirmations,
  simulateDeposit,
  simulatedTxid,
  startHarness,
  storedOrder,
  type Harness,
  type OrderJson,
} from './lifecycle-helpers.js';

describe('happy path through the HTTP API: BTC → ETH, float, exact deposit', () => {
  let h: Harness;
  let t: TestApp;
  before(async () => {
    h = await startHarness();
    t = h.t;
  });
  after(() => h.t.close());

  it('waiting_deposit → confirming → sending → completed, with one payout and one send', async () => {
    const created = await createOrder(h);
    const id = created.id;
    const txid = 'ab'.repeat(32);

    await simulateDeposit(h, id, { txid });
    // Nothing happens until the worker polls the (simulated) chain.
    const untouched = await getOrder(h, id);
    assert.equal(untouched.status, 'waiting_deposit');
    assert.equal(untouched.deposit_txid, null);

    await t.runtime.worker.tick();
    const confirming = await getOrder(h, id);
    assert.equal(confirming.status, 'confirming');
    assert.equal(confirming.deposit_txid, txid);
    assert.equal(confirming.deposit_confirmations, '0');
    assert.equal(confirming.deposit_confirmations_required, String(BTC_CONFIRMATIONS));
    assertDecimalEq(confirming.amount_from_received, created.amount_from_expected, 'amount_from_received');
    assert.equal(confirming.payout_txid, null);

    // Still below the required count: another pass changes nothing.
    await t.runtime.worker.tick();
    assert.equal((await getOrder(h, id)).status, 'confirming');

    await setConfirmations(h, id, BTC_CONFIRMATIONS);
    const seen: OrderJson[] = [];
    for (let pass = 0; pass < 6 && seen.at(-1)?.status !== 'completed'; pass++) {
      h.clock.advance(1);
      await t.runtime.worker.tick();
      seen.push(await getOrder(h, id));
    }
    const statuses = seen.map((order) => order.status);
    assert.equal(statuses.at(-1), 'completed', `statuses seen: ${statuses.join(' → ')}`);
    for (const status of statuses.slice(0, -1)) {
      assert.ok(status === 'exchanging' || status === 'sending', `unexpected status between confirming and completed: ${status}`);
    }
    assert.ok(statuses.includes('sending') || statuses.includes('exchanging'), 'an intermediate status was visible');
    for (const order of seen.slice(0, -1)) assert.equal(order.payout_txid, null, `payout_txid before completed (${order.status})`);

    const completed = seen.at(-1) as OrderJson;
    assert.equal(completed.payout_txid, simulatedTxid(id, 'payout'));
    assert.equal(completed.deposit_txid, txid);
    assert.equal(completed.deposit_confirmations, String(BTC_CONFIRMATIONS));
    assert.equal(completed.refund_txid, null);
    assert.equal(completed.status_reason, null);

    assert.deepEqual(await moves(h, id), [
      '∅→waiting_deposit',
      'waiting_deposit→confirming',
      'confirming→exchanging',
      'exchanging→sending',
      'sending→completed',
    ]);
    const events = await orderEvents(h, id);
    assert.deepEqual(
      events.map((event) => event.reason),
      ['created', 'deposit_seen', 'confirmed', 'exchange_filled', 'payout_sent'],
    );

    const payouts = await payoutRows(h, id);
    assert.equal(payouts.length, 1, JSON.stringify(payouts));
    const [payout] = payouts;
    assert.ok(payout !== undefined);
    assert.equal(payout.kind, 'payout');
    assert.equal(payout.status, 'sent');
    assert.equal(payout.chain, 'ETH');
    assert.equal(payout.address, ETH_RECIPIENT);
    assert.equal(payout.tag, null);
    assert.equal(payout.txid, completed.payout_txid);
    assert.ok(payout.sent_at !== null);
    // Exact deposit at unchanged prices: the payout is exactly what the order promised.
    assertDecimalEq(payout.amount, created.amount_to_expected, 'payout amount');

    const stored = await storedOrder(h, id);
    assertDecimalEq(stored.amount_to_final, created.amount_to_expected, 'amount_to_final');
    assert.equal(stored.locked_until, null);
    assert.equal(stored.attempts, 0);

    const sends = await sendRows(h, id);
    assert.equal(sends.length, 1, JSON.stringify(sends));
    const [send] = sends;
    assert.ok(send !== undefined);
    assert.equal(send.idempotency_key, `${id}:payout`);
    assert.equal(send.txid, completed.payout_txid);
    assert.equal(send.address, ETH_RECIPIENT);
    assertDecimalEq(send.amount, created.amount_to_expected, 'sent amount');

    // A completed order is left alone by later passes.
    const version = stored.version;
    await t.runtime.worker.tick();
    assert.equal((await storedOrder(h, id)).version, version);
    assert.equal((await sendRows(h, id)).length, 1);
  });

  it('the order is found by short id too, and other partners cannot see it', async () => {
    const created = await createOrder(h);
    const byShortId = await getOrder(h, created.short_id.toLowerCase());
    assert.equal(byShortId.id, created.id);
    const other = await t.createPartner({ name: 'Other' });
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/partner/orders/${created.id}`,
      headers: { 'x-api-key': other.apiKey },
    });
    assert.equal(res.statusCode, 404, res.body);
  });
});
