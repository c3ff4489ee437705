import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { findPartner } from '../../src/db/repositories/partners-repository.js';
import { Decimal } from '../../src/domain/money.js';
import { partnerCommission } from '../../src/domain/pricing/partner-commission.js';
import {
  createOrder,
  depositAndRun,
  exactJson,
  fixedQuote,
  injectFault,
  startHarness,
  storedOrder,
  type Harness,
  type OrderJson,
} from './lifecycle-helpers.js';
import { ManualClock } from '../helpers/test-app.js';

/**
 * Partner commission (docs/contract.md §7.8, issue 14): recorded at the exchange moment, shown on the
 * Order, summed by GET /partner/stats and by the operator's report to the last decimal.
 */

interface Fee {
  amount: string;
  coin: string;
  usd: string;
}

interface Stats {
  from: string;
  to: string;
  orders_by_status: Record<string, string>;
  volume_usd: string;
  commission: { orders: string; usd: string; by_coin: Array<{ coin: string; amount: string; usd: string }> };
}

describe('partner commission', () => {
  let h: Harness;
  const completed: OrderJson[] = [];
  let start: Date;
  before(async () => {
    h = await startHarness({}, new ManualClock());
    start = h.clock.now();
    // Markup 137 bps: figures that do not round to neat numbers.
    const res = await h.t.admin('PATCH', `/admin/v1/partners/${h.partner.id}`, { markup_bps: 137 });
    assert.equal(res.statusCode, 200, res.body);
  });
  after(() => h.t.close());

  async function stats(query = ''): Promise<Stats> {
    const res = await h.t.app.inject({ method: 'GET', url: `/api/v1/partner/stats${query}`, headers: { 'x-api-key': h.partner.apiKey } });
    assert.equal(res.statusCode, 200, res.body);
    return exactJson<Stats>(res);
  }

  it('partner_fee is null before the exchange and recorded exactly at it (coin_to, and USD at that moment\'s prices)', async () => {
    const order = await createOrder(h, { amount_from: '0.12345678' });
    assert.equal(order.partner_fee, null);
    const done = await depositAndRun(h, order.id, 'completed');
    completed.push(done);
    const fee = done.partner_fee as Fee;
    assert.equal(fee.coin, 'ETH');
    const stored = await storedOrder(h, order.id);
    const partner = await findPartner(h.t.db.handle.db, h.partner.id);
    assert.equal(partner?.markup_bps, 137);
    const btc = h.t.runtime.prices.getPriceUsd('BTC');
    const eth = h.t.runtime.prices.getPriceUsd('ETH');
    assert.ok(btc !== undefined && eth !== undefined);
    // Independently: received × BTC/ETH × 137/10 000, down to 18 places; USD down to 8.
    const amount = new Decimal('0.12345678').times(btc).times(137).dividedBy(eth.times(10_000)).toDecimalPlaces(18, Decimal.ROUND_DOWN);
    assert.ok(new Decimal(fee.amount).eq(amount), `${fee.amount} ≠ ${amount.toFixed()}`);
    assert.ok(new Decimal(fee.usd).eq(amount.times(eth).toDecimalPlaces(8, Decimal.ROUND_DOWN)), fee.usd);
    assert.ok(stored.exchanged_at !== null);
    assert.ok(new Decimal(stored.volume_usd ?? 'NaN').eq(new Decimal('0.12345678').times(btc).toDecimalPlaces(8, Decimal.ROUND_DOWN)));
  });

  it('a fixed order and another float order: stats sum partner_fee to the last decimal; sandbox orders apart', async () => {
    const fixed = await createOrder(h, { rate_type: 'fixed', quote_id: await fixedQuote(h, '0.5') });
    completed.push(await depositAndRun(h, fixed.id, 'completed'));
    const float = await createOrder(h, { amount_from: '1.00000001' });
    completed.push(await depositAndRun(h, float.id, 'completed'));
    await createOrder(h); // waiting: counted, no commission

    const sandboxKey = await h.t.admin('POST', `/admin/v1/partners/${h.partner.id}/keys`, { sandbox: true });
    assert.equal(sandboxKey.statusCode, 201, sandboxKey.body);
    const sandbox = await createOrder(h, {}, sandboxKey.json<{ api_key: string }>().api_key);
    await depositAndRun(h, sandbox.id, 'completed', {}, sandboxKey.json<{ api_key: string }>().api_key);
    assert.notEqual((await storedOrder(h, sandbox.id)).partner_fee, null, 'recorded, but never counted');

    const result = await stats();
    const fees = completed.map((order) => order.partner_fee as Fee);
    const usd = fees.reduce((sum, fee) => sum.plus(fee.usd), new Decimal(0));
    const eth = fees.reduce((sum, fee) => sum.plus(fee.amount), new Decimal(0));
    assert.equal(result.commission.usd, usd.toFixed(), 'the sum of partner_fee.usd, every decimal');
    assert.deepEqual(result.commission.by_coin, [{ coin: 'ETH', amount: eth.toFixed(), usd: usd.toFixed() }]);
    assert.equal(result.commission.orders, '3');
    assert.equal(result.orders_by_status.completed, '3');
    assert.equal(result.orders_by_status.waiting_deposit, '1');
    const volume = await Promise.all(completed.map(async (order) => new Decimal((await storedOrder(h, order.id)).volume_usd ?? 'NaN')));
    assert.equal(result.volume_usd, volume.reduce((a, b) => a.plus(b)).toFixed());

    // The operator's report: the same figures for this partner.
    const report = await h.t.admin('GET', `/admin/v1/commissions?from=${encodeURIComponent(start.toISOString())}`);
    assert.equal(report.statusCode, 200, report.body);
    const mine = exactJson<{ partners: Array<{ partner_id: string; commission_usd: string; orders: string; by_coin: unknown[] }> }>(report).partners.find(
      (row) => row.partner_id === h.partner.id,
    );
    assert.ok(mine !== undefined, report.body);
    assert.equal(mine.commission_usd, result.commission.usd);
    assert.equal(mine.orders, '3');
    assert.deepEqual(mine.by_coin, result.commission.by_coin);
  });

  it('a payout that fails for good earns nothing: no partner_fee on the Order, and the stats are the sum of partner_fee over every order listed', async () => {
    const before = await stats();
    await injectFault(h, 'payout', 1, true);
    const order = await createOrder(h, { amount_from: '0.3' });
    const failed = await depositAndRun(h, order.id, 'failed');
    assert.equal(failed.status_reason, 'payout_failed');
    assert.equal(failed.partner_fee, null, 'a failed order shows no commission');
    assert.notEqual((await storedOrder(h, order.id)).partner_fee, null, 'recorded at the exchange, kept for the operator');
    const result = await stats();
    assert.deepEqual(result.commission, before.commission, 'nothing earned, nothing counted');
    assert.equal(result.orders_by_status.failed, String(Number(before.orders_by_status.failed) + 1));

    // What a partner can check from its own Orders: every live order of the period (all were
    // made and exchanged in it), their partner_fee summed, equals the stats to the last decimal.
    const listed = await h.t.app.inject({ method: 'GET', url: '/api/v1/partner/orders?limit=100', headers: { 'x-api-key': h.partner.apiKey } });
    assert.equal(listed.statusCode, 200, listed.body);
    const page = exactJson<{ orders: OrderJson[]; next_cursor: string | null }>(listed);
    assert.equal(page.next_cursor, null);
    assert.ok(page.orders.some((listedOrder) => listedOrder.id === order.id && listedOrder.partner_fee === null));
    const fees = page.orders.flatMap((listedOrder) => (listedOrder.partner_fee === null ? [] : [listedOrder.partner_fee as Fee]));
    assert.equal(String(fees.length), result.commission.orders);
    assert.equal(result.commission.usd, fees.reduce((sum, fee) => sum.plus(fee.usd), new Decimal(0)).toFixed());
    assert.deepEqual(
      result.commission.by_coin,
      [{ coin: 'ETH', amount: fees.reduce((sum, fee) => sum.plus(fee.amount), new Decimal(0)).toFixed(), usd: result.commission.usd }],
    );
  });

  it('the period: before the orders nothing; a reversed or unreadable period is 400', async () => {
    const empty = await stats(`?to=${encodeURIComponent(start.toISOString())}`);
    assert.equal(empty.commission.usd, '0');
    assert.equal(empty.orders_by_status.completed, '0');
    for (const query of ['?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', '?from=yesterday', '?from=2020-01-01T00:00:00Z&to=2026-01-01T00:00:00Z']) {
      const res = await h.t.app.inject({ method: 'GET', url: `/api/v1/partner/stats${query}`, headers: { 'x-api-key': h.partner.apiKey } });
      assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
    }
    assert.equal((await h.t.app.inject({ method: 'GET', url: '/api/v1/partner/stats' })).statusCode, 401);
  });

  it('partnerCommission: never more than charged, exact sums', () => {
    const share = partnerCommission({ received: new Decimal('1'), priceFromUsd: new Decimal('3'), priceToUsd: new Decimal('7'), markupBps: 50, toDecimals: 6 });
    assert.equal(share.amount.toFixed(), '0.002142'); // 3/7 × 0.005 = 0.0021428…
    assert.equal(share.usd.toFixed(), '0.014994');
    assert.equal(share.volumeUsd.toFixed(), '3');
    assert.equal(partnerCommission({ received: new Decimal('5'), priceFromUsd: new Decimal('2'), priceToUsd: new Decimal('1'), markupBps: 0, toDecimals: 8 }).amount.toFixed(), '0');
  });
});
