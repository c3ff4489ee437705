import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  createOrder,
  getOrder,
  simulateDeposit,
  startHarness,
  type Harness,
  type OrderJson,
  shortFixedOrder,
} from './lifecycle-helpers.js';
import { ManualClock } from '../helpers/test-app.js';

/**
 * Concurrent actions on one order resolve to exactly one (issue 14): many requests at once,
 * partner and operator mixed, through the HTTP stack. On PostgreSQL (the runner's second pass)
 * they run truly in parallel on separate connections; the version check of the one writer of
 * status lets one move through and the table refuses the rest (409).
 */
describe('order actions under concurrency', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({}, new ManualClock());
  });
  after(() => h.t.close());

  async function heldOrder(): Promise<OrderJson> {
    const held = await shortFixedOrder(h);
    assert.deepEqual(held.actions, ['set_refund_address', 'continue', 'refund']);
    return held;
  }

  function partnerAction(id: string, action: string) {
    return h.t.app.inject({ method: 'POST', url: `/api/v1/partner/orders/${id}/${action}`, headers: { 'x-api-key': h.partner.apiKey } });
  }

  async function eventsWith(id: string, reasons: string[]) {
    return h.t.db.handle.db.selectFrom('order_events').select(['reason', 'actor']).where('order_id', '=', id).where('reason', 'in', reasons).execute();
  }

  it('20 continue and refund requests at once on a held order: exactly one succeeds, one audit row, the rest 409', async () => {
    const held = await heldOrder();
    const requests = Array.from({ length: 20 }, (_, i) =>
      i % 4 === 3 ? h.t.admin('POST', `/admin/v1/orders/${held.id}/${i % 8 === 3 ? 'continue' : 'refund'}`) : partnerAction(held.id, i % 2 === 0 ? 'continue' : 'refund'),
    );
    const answers = await Promise.all(requests);
    const codes = answers.map((res) => res.statusCode);
    assert.equal(codes.filter((code) => code === 200).length, 1, JSON.stringify(codes));
    assert.equal(codes.filter((code) => code === 409).length, 19, JSON.stringify(codes));
    const moved = await eventsWith(held.id, ['continue', 'refund']);
    assert.equal(moved.length, 1, JSON.stringify(moved));
    const order = await getOrder(h, held.id);
    assert.equal(order.status, moved[0]?.reason === 'continue' ? 'exchanging' : 'refunding');
    const payouts = await h.t.db.handle.db.selectFrom('payouts').select('kind').where('order_id', '=', held.id).execute();
    assert.deepEqual(payouts.map((p) => p.kind), moved[0]?.reason === 'refund' ? ['refund'] : []);
  });

  it('20 cancels at once on a waiting order: one expires it, 19 are 409', async () => {
    const order = await createOrder(h);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 5 === 0 ? h.t.admin('POST', `/admin/v1/orders/${order.id}/cancel`) : partnerAction(order.id, 'cancel'))),
    );
    const codes = answers.map((res) => res.statusCode);
    assert.equal(codes.filter((code) => code === 200).length, 1, JSON.stringify(codes));
    assert.equal(codes.filter((code) => code === 409).length, 19, JSON.stringify(codes));
    assert.equal((await eventsWith(order.id, ['cancelled'])).length, 1);
    assert.equal((await getOrder(h, order.id)).status_reason, 'cancelled');
  });

  it('a cancel racing a deposit: either the deposit is seen (cancel 409) or the order is cancelled and the deposit is late', async () => {
    const order = await createOrder(h);
    await simulateDeposit(h, order.id);
    const [cancel] = await Promise.all([partnerAction(order.id, 'cancel'), h.t.runtime.worker.tick()]);
    const after = await getOrder(h, order.id);
    if (cancel.statusCode === 200) assert.ok(['expired', 'refunding', 'refunded'].includes(after.status), after.status);
    else {
      assert.equal(cancel.statusCode, 409, cancel.body);
      assert.equal(after.status, 'confirming');
    }
  });
});
