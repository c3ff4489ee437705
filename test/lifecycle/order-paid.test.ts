import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'lossless-json';
import { Decimal } from '../../src/domain/money.js';
import {
  advance,
  assertDecimalEq,
  BTC_REFUND,
  createOrder,
  depositAndRun,
  getOrder,
  injectFault,
  payoutRows,
  shortFixedOrder,
  startHarness,
  tickUntil,
  type Harness,
  type OrderJson,
} from './lifecycle-helpers.js';
import { ManualClock } from '../helpers/test-app.js';

/**
 * What the Order tells of what was paid (docs/contract.md §10.1, issue 26.2): amount_to_final and rate_final
 * once the payout is sent, amount_refunded once the refund is, exactly the payout rows' amounts;
 * updated_at; the recipient's tag and the refund address and tag. The webhooks carry the same
 * Order.
 */

/** The Order in each of the order's webhook events, oldest first, numbers as their literals. */
async function webhookOrders(h: Harness, id: string): Promise<OrderJson[]> {
  const rows = await h.t.db.handle.db
    .selectFrom('webhook_events')
    .select(['payload', 'created_at'])
    .where('order_id', '=', id)
    .execute();
  // In the order of the moves: the Order's version, +1 a move (docs/contract.md §10.11). Not
  // created_at: the manual clock stands still across a worker's passes, so every event of this
  // test has the same time, and rows of equal times come back in any order (the pgbouncer pass
  // once gave the move into sending last).
  return rows
    .map((row) => (parse(row.payload, null, (literal: string) => literal) as { data: { order: OrderJson } }).data.order)
    .sort((a, b) => Number(a.version) - Number(b.version));
}

describe('the Order shows what was paid (issue 26.2)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({}, new ManualClock());
    // An endpoint, so every move's webhook event is stored (its body is the Order as GET shows it).
    const res = await h.t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/webhooks',
      headers: { 'x-api-key': h.partner.apiKey, 'content-type': 'application/json' },
      payload: JSON.stringify({ url: 'https://hooks.example.com/orders' }),
    });
    assert.equal(res.statusCode, 201, res.body);
  });
  after(() => h.t.close());

  it('a float order paid twice the expected amount completes showing exactly what the payout sent, and its rate', async () => {
    const order = await createOrder(h, { amount_from: '0.5' });
    assert.equal(order.amount_to_final, null);
    assert.equal(order.rate_final, null);
    assert.equal(order.updated_at, order.created_at);
    assert.equal(order.refund_address, BTC_REFUND);
    assert.equal(order.recipient_address_tag, null);
    await advance(h, 60_000);
    const sending = await depositAndRun(h, order.id, 'sending', { amount: '1' });
    assert.equal(sending.amount_to_final, null, 'not sent yet');
    assert.equal(sending.rate_final, null);
    await tickUntil(h, order.id, 'completed', 3);
    const done = await getOrder(h, order.id);
    const [payout] = await payoutRows(h, order.id);
    assert.equal(payout?.status, 'sent');
    assert.ok(done.amount_to_final !== null && done.amount_to_final !== undefined);
    // To the last decimal: the literal equals the payout row's amount.
    assert.equal(done.amount_to_final, new Decimal(payout.amount).toFixed());
    assert.ok(new Decimal(String(done.amount_to_final)).gt(new Decimal(done.amount_to_expected).times('1.9')), 'about twice the expected');
    assert.equal(done.rate_final, new Decimal(String(done.amount_to_final)).dividedBy('1').toDecimalPlaces(18, Decimal.ROUND_DOWN).toFixed());
    assert.equal(done.amount_refunded, null);
    assert.ok(Date.parse(String(done.updated_at)) > Date.parse(String(done.created_at)), 'updated_at moved');
    // The webhooks carry the same Order: the last one is the completed Order as GET shows it.
    const sent = await webhookOrders(h, order.id);
    const last = sent.at(-1);
    assert.equal(last?.status, 'completed');
    assert.equal(last.amount_to_final, done.amount_to_final);
    assert.equal(last.rate_final, done.rate_final);
    assert.ok(sent.some((o) => o.status === 'sending' && o.amount_to_final === null), 'null in the event of the move into sending');
  });

  it('a held fixed order that is continued keeps rate_type fixed and amount_to_expected; amount_to_final and rate_final tell what was paid', async () => {
    const held = await shortFixedOrder(h);
    const res = await h.t.app.inject({ method: 'POST', url: `/api/v1/partner/orders/${held.id}/continue`, headers: { 'x-api-key': h.partner.apiKey } });
    assert.equal(res.statusCode, 200, res.body);
    await tickUntil(h, held.id, 'completed', 3);
    const done = await getOrder(h, held.id);
    assert.equal(done.rate_type, 'fixed', 'as created (docs/contract.md §10.1)');
    assert.equal(done.amount_to_expected, held.amount_to_expected);
    const [payout] = await payoutRows(h, held.id);
    assert.ok(payout !== undefined);
    assert.equal(done.amount_to_final, new Decimal(payout.amount).toFixed());
    assert.ok(new Decimal(String(done.amount_to_final)).lt(done.amount_to_expected), 'less was received, less was paid');
    const received = new Decimal(done.amount_from_received ?? 'NaN');
    assertDecimalEq(String(done.rate_final), new Decimal(payout.amount).dividedBy(received).toDecimalPlaces(18, Decimal.ROUND_DOWN), 'rate_final');
    const last = (await webhookOrders(h, held.id)).at(-1);
    assert.equal(last?.amount_to_final, done.amount_to_final);
  });

  it('a refunded order shows exactly what the refund sent, and no amount_to_final', async () => {
    await injectFault(h, 'exchange', 1, true);
    const order = await createOrder(h, { amount_from: '0.3' });
    await depositAndRun(h, order.id, 'refunding', { amount: '0.30000001' });
    await tickUntil(h, order.id, 'refunded', 4);
    const done = await getOrder(h, order.id);
    const [refund] = await payoutRows(h, order.id);
    assert.equal(refund?.kind, 'refund');
    assert.equal(done.amount_refunded, new Decimal(refund.amount).toFixed());
    assert.equal(done.amount_refunded, '0.30000001');
    assert.equal(done.amount_to_final, null);
    assert.equal(done.rate_final, null);
    assert.equal((await webhookOrders(h, order.id)).at(-1)?.amount_refunded, '0.30000001');
  });
});
