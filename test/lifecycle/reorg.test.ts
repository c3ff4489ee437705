import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/test-app.js';
import {
  advance,
  createOrder,
  dropDeposit,
  getOrder,
  moves,
  orderEvents,
  setConfirmations,
  simulateDeposit,
  startHarness,
  storedOrder,
  WINDOW_MS,
  type Harness,
} from './lifecycle-helpers.js';

describe('reorg: the deposit disappears while confirming', () => {
  let h: Harness;
  let t: TestApp;
  before(async () => {
    h = await startHarness();
    t = h.t;
  });
  after(() => h.t.close());

  it('before expires_at → back to waiting_deposit with txid, confirmations and amount cleared', async () => {
    const order = await createOrder(h);
    const txid = 'ef'.repeat(32);
    await simulateDeposit(h, order.id, { txid });
    await t.runtime.worker.tick();
    await setConfirmations(h, order.id, 1);
    await t.runtime.worker.tick();
    const confirming = await getOrder(h, order.id);
    assert.equal(confirming.status, 'confirming');
    assert.equal(confirming.deposit_txid, txid);
    assert.equal(confirming.deposit_confirmations, '1');

    await dropDeposit(h, order.id);
    await t.runtime.worker.tick();
    const back = await getOrder(h, order.id);
    assert.equal(back.status, 'waiting_deposit');
    assert.equal(back.deposit_txid, null);
    assert.equal(back.deposit_confirmations, null);
    assert.equal(back.amount_from_received, null);
    assert.equal(back.expires_at, order.expires_at, 'the deposit window is not extended');

    assert.deepEqual(await moves(h, order.id), [
      '∅→waiting_deposit',
      'waiting_deposit→confirming',
      'confirming→confirming',
      'confirming→waiting_deposit',
    ]);
    const dropped = (await orderEvents(h, order.id)).at(-1);
    assert.equal(dropped?.reason, 'deposit_dropped');
    assert.deepEqual(dropped.data, { txid });

    // The dropped deposit is not seen again, and the order then expires normally.
    await t.runtime.worker.tick();
    assert.equal((await getOrder(h, order.id)).status, 'waiting_deposit');
    await advance(h, WINDOW_MS);
    await t.runtime.worker.tick();
    assert.equal((await storedOrder(h, order.id)).status, 'expired');
    assert.equal((await moves(h, order.id)).at(-1), 'waiting_deposit→expired');
    // A dropped deposit is no late deposit either.
    await t.runtime.worker.tick();
    assert.equal((await storedOrder(h, order.id)).status, 'expired');
  });

  it('past expires_at → expired, fields cleared, no late-deposit refund', async () => {
    const order = await createOrder(h);
    await simulateDeposit(h, order.id);
    await t.runtime.worker.tick();
    assert.equal((await getOrder(h, order.id)).status, 'confirming');

    // A confirming order is not expired by the clock: it reads and stays confirming.
    await advance(h, WINDOW_MS + 1000);
    assert.equal((await getOrder(h, order.id)).status, 'confirming');
    await t.runtime.worker.tick();
    assert.equal((await storedOrder(h, order.id)).status, 'confirming');

    await dropDeposit(h, order.id);
    await t.runtime.worker.tick();
    const expired = await getOrder(h, order.id);
    assert.equal(expired.status, 'expired');
    assert.equal(expired.deposit_txid, null);
    assert.equal(expired.deposit_confirmations, null);
    assert.equal(expired.amount_from_received, null);
    assert.deepEqual(await moves(h, order.id), ['∅→waiting_deposit', 'waiting_deposit→confirming', 'confirming→expired']);

    await t.runtime.worker.tick();
    const stored = await storedOrder(h, order.id);
    assert.equal(stored.status, 'expired');
    assert.equal(stored.status_reason, null);
    const payouts = await t.db.handle.db.selectFrom('payouts').select('id').where('order_id', '=', order.id).execute();
    assert.deepEqual(payouts, []);
  });
});
