import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { findPartner } from '../../src/db/repositories/partners-repository.js';
import { Decimal } from '../../src/domain/money.js';
import { partnerCommission } from '../../src/domain/pricing/partner-commission.js';
import {
  assertDecimalEq,
  createOrder,
  depositAndRun,
  exactJson,
  payoutRows,
  shortFixedOrder,
  startHarness,
  storedOrder,
  tickUntil,
  type Harness,
  type OrderJson,
} from './lifecycle-helpers.js';
import { ManualClock } from '../helpers/test-app.js';

/**
 * The markup an order is priced with is fixed when it is priced and stored on the order (docs/contract.md
 * §10.1, issue 26.1): a fixed order's is the one inside its quote, a float order's the one at
 * creation (applied again at the exchange), a continued order's the one of that re-pricing.
 * partner_fee always comes from the stored one, whatever the partner's markup is by then.
 */

interface Fee {
  amount: string;
  coin: string;
  usd: string;
}

describe('the markup an order is priced with (issue 26.1)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ DEFAULT_MARKUP_BPS: '50' }, new ManualClock());
  });
  after(() => h.t.close());

  async function setMarkup(bps: number): Promise<void> {
    const res = await h.t.admin('PATCH', `/admin/v1/partners/${h.partner.id}`, { markup_bps: bps });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal((await findPartner(h.t.db.handle.db, h.partner.id))?.markup_bps, bps);
  }

  async function quote(amount: string, keyed: boolean): Promise<{ quote_id: string; amount_to: string }> {
    const res = await h.t.app.inject({
      method: 'GET',
      url: `/api/v1/partner/rates?coin_from=BTC&coin_to=ETH&amount=${amount}&rate_type=fixed`,
      headers: keyed ? { 'x-api-key': h.partner.apiKey } : {},
    });
    assert.equal(res.statusCode, 200, res.body);
    return exactJson<{ quote_id: string; amount_to: string }>(res);
  }

  /** received × BTC/ETH × bps / 10 000 at the (static) prices now, as the exchange records it. */
  function expectedFee(received: string, bps: number): Decimal {
    const btc = h.t.runtime.prices.getPriceUsd('BTC');
    const eth = h.t.runtime.prices.getPriceUsd('ETH');
    assert.ok(btc !== undefined && eth !== undefined);
    return partnerCommission({ received: new Decimal(received), priceFromUsd: btc, priceToUsd: eth, markupBps: bps, toDecimals: 18 }).amount;
  }

  function fee(order: OrderJson): Fee {
    assert.notEqual(order.partner_fee, null, 'partner_fee recorded');
    return order.partner_fee as Fee;
  }

  it('a fixed order quoted at 0 bps keeps 0 bps when the markup is raised to 300 before the deposit', async () => {
    await setMarkup(0);
    const quoted = await quote('0.5', true);
    await setMarkup(300);
    const order = await createOrder(h, { rate_type: 'fixed', quote_id: quoted.quote_id });
    assert.equal(order.amount_to_expected, quoted.amount_to);
    const done = await depositAndRun(h, order.id, 'completed');
    const [payout] = await payoutRows(h, order.id);
    assertDecimalEq(payout?.amount, quoted.amount_to, 'paid at the quoted (0 bps) rate');
    assertDecimalEq(fee(done).amount, 0, 'partner_fee at the quote\'s 0 bps, not 300');
    assert.equal((await storedOrder(h, order.id)).markup_bps, 0);
  });

  it('a quote taken without a key (the default markup, 50) and used with a key earns that markup, not the partner\'s', async () => {
    await setMarkup(300);
    const quoted = await quote('0.5', false);
    const order = await createOrder(h, { rate_type: 'fixed', quote_id: quoted.quote_id });
    const done = await depositAndRun(h, order.id, 'completed');
    assertDecimalEq(fee(done).amount, expectedFee('0.5', 50), 'partner_fee at 50 bps');
    assert.equal((await storedOrder(h, order.id)).markup_bps, 50);
  });

  it('a float order keeps the markup of its creation: priced again with it at the exchange, and its fee from it', async () => {
    await setMarkup(100);
    const order = await createOrder(h, { amount_from: '0.5' });
    await setMarkup(300);
    const done = await depositAndRun(h, order.id, 'completed');
    const { catalog, quotes } = h.t.runtime;
    const from = catalog.byId((await storedOrder(h, order.id)).currency_from_id);
    const to = catalog.byId((await storedOrder(h, order.id)).currency_to_id);
    assert.ok(from !== undefined && to !== undefined);
    const at100 = quotes.pricePair(from, to, { amount: new Decimal('0.5'), rateType: 'float', markupBps: 100 });
    const [payout] = await payoutRows(h, order.id);
    assertDecimalEq(payout?.amount, at100.amountTo, 'payout priced at the creation\'s 100 bps');
    assertDecimalEq(fee(done).amount, expectedFee('0.5', 100), 'partner_fee at 100 bps');
  });

  it('continue: the order is re-priced with the markup at the moment of continue, and earns that one', async () => {
    await setMarkup(0);
    const held = await shortFixedOrder(h);
    assert.deepEqual(held.actions, ['set_refund_address', 'continue', 'refund']);
    await setMarkup(200);
    const res = await h.t.app.inject({ method: 'POST', url: `/api/v1/partner/orders/${held.id}/continue`, headers: { 'x-api-key': h.partner.apiKey } });
    assert.equal(res.statusCode, 200, res.body);
    await setMarkup(300);
    await tickUntil(h, held.id, 'completed', 3);
    const received = held.amount_from_received ?? 'NaN';
    const stored = await storedOrder(h, held.id);
    assert.equal(stored.markup_bps, 200);
    const { catalog, quotes } = h.t.runtime;
    const from = catalog.byId(stored.currency_from_id);
    const to = catalog.byId(stored.currency_to_id);
    assert.ok(from !== undefined && to !== undefined);
    const at200 = quotes.pricePair(from, to, { amount: new Decimal(received), rateType: 'float', markupBps: 200 });
    const [payout] = await payoutRows(h, held.id);
    assertDecimalEq(payout?.amount, at200.amountTo, 'payout re-priced at 200 bps');
    assertDecimalEq(stored.partner_fee, expectedFee(received, 200), 'partner_fee at 200 bps');
  });
});
