import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'lossless-json';
import { Webhook } from 'standardwebhooks';
import { ManualClock } from '../helpers/test-app.js';
import { createOrder, exactJson, fixedQuote, getOrder, simulateDeposit, startHarness, type Harness } from '../lifecycle/lifecycle-helpers.js';
import { WebhookReceiver } from '../webhooks/webhook-receiver.js';

/**
 * Orders carry the quote's network_fee and eta_seconds (docs/contract.md §10.6, issue 27.3): stored at
 * creation, shown by POST, GET, the list and every webhook's Order, and never changed afterwards
 * (not by a catalog change, not by the order's moves).
 */

const BTC_ETH_FEE = { amount: '0.0005', coin: 'ETH', usd: '1.75' };
const BTC_ETH_ETA = '1272'; // 2 confirmations × 600 s (Bitcoin) + 72 s (Ethereum's payout allowance)

describe('Order: network_fee and eta_seconds (docs/contract.md §10.6)', () => {
  const clock = new ManualClock();
  const receiver = new WebhookReceiver();
  let h: Harness;
  let secret: string;
  before(async () => {
    // Now, when the file's tests start: the receiver checks webhook-timestamp against Date.now()
    // (Standard Webhooks, 5 minutes' tolerance), and this describe body ran when its group
    // imported every file, which on a busy pass was more than 5 minutes before (CI, stop 42).
    clock.set(new Date());
    await receiver.start();
    h = await startHarness({}, clock);
    const endpoint = await h.t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/webhooks',
      headers: { 'x-api-key': h.partner.apiKey, 'content-type': 'application/json' },
      payload: JSON.stringify({ url: receiver.url('/orders') }),
    });
    assert.equal(endpoint.statusCode, 201, endpoint.body);
    secret = endpoint.json<{ secret: string }>().secret;
  });
  after(async () => {
    await h.t.close();
    await receiver.close();
  });

  const currencyId = async (coin: string, network: string): Promise<string> => {
    const rows = (await h.t.admin('GET', '/admin/v1/currencies')).json<{ id: string; coin: string; network: string }[]>();
    const row = rows.find((candidate) => candidate.coin === coin && candidate.network === network);
    assert.ok(row !== undefined);
    return row.id;
  };
  /** The Order of each webhook the endpoint got for `orderId`, numbers as their literals. */
  const webhookOrders = (orderId: string): Record<string, unknown>[] =>
    receiver
      .on('/orders')
      .map((request) => {
        new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
        return parse(request.body, null, (literal: string) => literal) as { data: { order?: Record<string, unknown> } };
      })
      .map((body) => body.data.order)
      .filter((order): order is Record<string, unknown> => order?.id === orderId);

  it('a float order: POST and GET show the fee and ETA the quote showed', async () => {
    const quote = await h.t.app.inject({ method: 'GET', url: '/api/v1/partner/rates?coin_from=BTC&coin_to=ETH&amount=0.5', headers: { 'x-api-key': h.partner.apiKey } });
    const quoted = exactJson<{ network_fee: unknown; eta_seconds: string }>(quote);
    const order = await createOrder(h);
    assert.deepEqual(order.network_fee, BTC_ETH_FEE);
    assert.equal(order.eta_seconds, BTC_ETH_ETA);
    assert.deepEqual(order.network_fee, quoted.network_fee);
    assert.equal(order.eta_seconds, quoted.eta_seconds);
    const got = await getOrder(h, order.id);
    assert.deepEqual(got.network_fee, BTC_ETH_FEE);
    assert.equal(got.eta_seconds, BTC_ETH_ETA);
    const list = await h.t.app.inject({ method: 'GET', url: '/api/v1/partner/orders', headers: { 'x-api-key': h.partner.apiKey } });
    const listed = exactJson<{ orders: Record<string, unknown>[] }>(list).orders.find((row) => row.id === order.id);
    assert.deepEqual(listed?.network_fee, BTC_ETH_FEE);
    assert.equal(listed?.eta_seconds, BTC_ETH_ETA);
  });

  it('a fixed order from a quote_id carries that quote\'s fee and ETA', async () => {
    const order = await createOrder(h, { rate_type: 'fixed', quote_id: await fixedQuote(h, '0.5') });
    assert.deepEqual(order.network_fee, BTC_ETH_FEE);
    assert.equal(order.eta_seconds, BTC_ETH_ETA);
  });

  it('the webhooks carry them: order.created and order.status_changed', async () => {
    const order = await createOrder(h);
    await h.t.runtime.webhookWorker.drain();
    clock.advance(1000);
    await simulateDeposit(h, order.id);
    await h.t.runtime.worker.tick();
    await h.t.runtime.webhookWorker.drain();
    const orders = webhookOrders(order.id);
    assert.deepEqual(orders.map((o) => o.status), ['waiting_deposit', 'confirming']);
    for (const sent of orders) {
      assert.deepEqual(sent.network_fee, BTC_ETH_FEE);
      assert.equal(sent.eta_seconds, BTC_ETH_ETA);
    }
  });

  it('stored at creation: a later catalog change moves new quotes, not the order', async () => {
    const order = await createOrder(h);
    const eth = await currencyId('ETH', 'ETH');
    const btc = await currencyId('BTC', 'BTC');
    assert.equal((await h.t.admin('PATCH', `/admin/v1/currencies/${eth}`, { payout_fee: '0.001' })).statusCode, 200);
    assert.equal((await h.t.admin('PATCH', `/admin/v1/currencies/${btc}`, { min_confirmations: 3 })).statusCode, 200);
    try {
      const fresh = await createOrder(h);
      assert.deepEqual(fresh.network_fee, { amount: '0.001', coin: 'ETH', usd: '3.5' });
      assert.equal(fresh.eta_seconds, String(3 * 600 + 72));
      const kept = await getOrder(h, order.id);
      assert.deepEqual(kept.network_fee, BTC_ETH_FEE);
      assert.equal(kept.eta_seconds, BTC_ETH_ETA);
    } finally {
      await h.t.admin('PATCH', `/admin/v1/currencies/${eth}`, { payout_fee: '0.0005' });
      await h.t.admin('PATCH', `/admin/v1/currencies/${btc}`, { min_confirmations: 2 });
    }
  });

  it('an order made before v1.2 (no stored fee) shows null for both', async () => {
    const order = await createOrder(h);
    await h.t.db.handle.db
      .updateTable('orders')
      .set({ network_fee: null, network_fee_usd: null, eta_seconds: null })
      .where('id', '=', order.id)
      .execute();
    const got = await getOrder(h, order.id);
    assert.equal(got.network_fee, null);
    assert.equal(got.eta_seconds, null);
  });
});
