import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { OrderStatus } from '../../src/domain/order-status.js';
import type { TestApp } from '../helpers/test-app.js';
import { advance, createOrder, getOrder, moves, simulateDeposit, simulatedTxid, startHarness, type Harness } from './lifecycle-helpers.js';

/**
 * SIMULATOR_AUTO=1 (the embedded default): after one simulated deposit, confirmations grow by one
 * every SIMULATOR_CONFIRM_SECONDS and the order completes with no other step.
 */
describe('SIMULATOR_AUTO demo', () => {
  let h: Harness;
  let t: TestApp;
  before(async () => {
    h = await startHarness({ SIMULATOR_AUTO: '1', SIMULATOR_CONFIRM_SECONDS: '3' });
    t = h.t;
  });
  after(() => h.t.close());

  it('one deposit, then passes 3 s apart → completed', async () => {
    assert.equal(t.config.lifecycle.simulatorAutoConfirmMs, 3000);
    const order = await createOrder(h);
    await simulateDeposit(h, order.id);

    const seen: OrderStatus[] = [];
    const confirmations: Array<string | null> = [];
    for (let pass = 0; pass < 10 && seen.at(-1) !== 'completed'; pass++) {
      await t.runtime.worker.tick();
      const current = await getOrder(h, order.id);
      seen.push(current.status);
      confirmations.push(current.deposit_confirmations);
      await advance(h, 3000);
    }
    assert.equal(seen.at(-1), 'completed', `statuses: ${seen.join(' → ')}`);
    // Seen at once with 0 confirmations, one more every 3 s, then exchanged and paid out.
    assert.deepEqual(seen, ['confirming', 'confirming', 'sending', 'completed']);
    assert.deepEqual(confirmations, ['0', '1', '2', '2']);

    const done = await getOrder(h, order.id);
    assert.equal(done.payout_txid, simulatedTxid(order.id, 'payout'));
    assert.deepEqual(await moves(h, order.id), [
      '∅→waiting_deposit',
      'waiting_deposit→confirming',
      'confirming→confirming',
      'confirming→exchanging',
      'exchanging→sending',
      'sending→completed',
    ]);
  });

  it('without passing time, confirmations do not grow', async () => {
    const order = await createOrder(h);
    await simulateDeposit(h, order.id);
    for (let pass = 0; pass < 3; pass++) await t.runtime.worker.tick();
    const current = await getOrder(h, order.id);
    assert.equal(current.status, 'confirming');
    assert.equal(current.deposit_confirmations, '0');
    await advance(h, 2999);
    await t.runtime.worker.tick();
    assert.equal((await getOrder(h, order.id)).deposit_confirmations, '0');
    await advance(h, 1);
    await t.runtime.worker.tick();
    assert.equal((await getOrder(h, order.id)).deposit_confirmations, '1');
    // Finish it, so nothing is left half-way.
    await advance(h, 3000);
    await t.runtime.worker.tick();
    await t.runtime.worker.tick();
    assert.equal((await getOrder(h, order.id)).status, 'completed');
  });
});
