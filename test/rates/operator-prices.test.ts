import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';
import { assertError, getRates, oracle, rawNumber } from './rates-helpers.js';

interface PriceEntry {
  symbol: string;
  static_price_usd: number | null;
  static_updated_at: string | null;
  price_usd: number | null;
  sources: string[];
  outliers: string[];
}

/** The operator's static price table (PUT/GET /admin/v1/prices) and its effect on quotes. */
describe('operator prices', () => {
  const clock = new ManualClock(new Date('2026-02-01T08:00:00.000Z'));
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ clock, env: { PRICE_POLL_SECONDS: '3600' } });
  });
  after(() => t.close());

  const listPrices = async (): Promise<{ entries: PriceEntry[]; body: string }> => {
    const res = await t.admin('GET', '/admin/v1/prices');
    assert.equal(res.statusCode, 200, res.body);
    return { entries: res.json<PriceEntry[]>(), body: res.body };
  };

  it('GET /admin/v1/prices lists the seeded table next to the live prices', async () => {
    const { entries } = await listPrices();
    const symbols = entries.map((entry) => entry.symbol);
    assert.deepEqual(symbols, [...symbols].sort());
    for (const symbol of ['BTC', 'ETH', 'USDT', 'USDC', 'LTC', 'DOGE', 'TRX', 'BNB', 'SOL', 'XRP', 'XLM', 'TON']) {
      assert.ok(symbols.includes(symbol), symbol);
    }
    const eth = entries.find((entry) => entry.symbol === 'ETH');
    assert.deepEqual(Object.keys(eth ?? {}).sort(), ['outliers', 'price_usd', 'sources', 'static_price_usd', 'static_updated_at', 'symbol']);
    assert.equal(eth?.static_price_usd, 3500);
    assert.equal(eth?.price_usd, 3500);
    assert.deepEqual(eth?.sources, ['static']);
    assert.deepEqual(eth?.outliers, []);
  });

  it('PUT /admin/v1/prices/BTC sets the price; the next quote uses it', async () => {
    const before = await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=1');
    assert.equal(rawNumber(before.body, 'rate'), oracle({ from: 'BTC', to: 'ETH', amount: '1' }).rate.toFixed());

    const res = await t.admin('PUT', '/admin/v1/prices/BTC', { price_usd: '70000' });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json<Record<string, unknown>>();
    assert.deepEqual(Object.keys(body).sort(), ['price_usd', 'symbol', 'updated_at']);
    assert.equal(body.symbol, 'BTC');
    assert.equal(rawNumber(res.body, 'price_usd'), '70000');
    assert.equal(body.updated_at, clock.now().toISOString());

    const prices = { BTC: '70000' };
    const after = await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=1');
    assert.equal(after.statusCode, 200, after.body);
    // 70000 / 3500 × 0.99 − 0.0005 = 20 × 0.99 − 0.0005 = 19.7995 exactly.
    assert.equal(rawNumber(after.body, 'rate'), '19.7995');
    assert.equal(rawNumber(after.body, 'rate'), oracle({ from: 'BTC', to: 'ETH', amount: '1', prices }).rate.toFixed());
    const atMin = await getRates(t, 'coin_from=BTC&coin_to=ETH');
    const expectedAtMin = oracle({ from: 'BTC', to: 'ETH', prices });
    assert.equal(rawNumber(atMin.body, 'rate'), expectedAtMin.rate.toFixed());
    assert.equal(rawNumber(atMin.body, 'min_amount'), expectedAtMin.minAmount.toFixed());
    // The reverse direction and the fixed quote follow as well.
    const reverse = await getRates(t, 'coin_from=ETH&coin_to=BTC&amount=1&rate_type=fixed');
    assert.equal(
      rawNumber(reverse.body, 'rate'),
      oracle({ from: 'ETH', to: 'BTC', amount: '1', rateType: 'fixed', prices }).rate.toFixed(),
    );

    const { entries } = await listPrices();
    const btc = entries.find((entry) => entry.symbol === 'BTC');
    assert.equal(btc?.static_price_usd, 70000);
    assert.equal(btc?.price_usd, 70000);
    assert.deepEqual(btc?.sources, ['static']);
    assert.equal(btc?.static_updated_at, clock.now().toISOString());
  });

  it('accepts a lower-case symbol and a JSON number, and keeps a long decimal exact', async () => {
    const number = await t.admin('PUT', '/admin/v1/prices/eth', { price_usd: 3600.5 });
    assert.equal(number.statusCode, 200, number.body);
    assert.equal(number.json<{ symbol: string }>().symbol, 'ETH');
    assert.equal(rawNumber(number.body, 'price_usd'), '3600.5');
    const quote = await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=0.3');
    assert.equal(
      rawNumber(quote.body, 'rate'),
      oracle({ from: 'BTC', to: 'ETH', amount: '0.3', prices: { BTC: '70000', ETH: '3600.5' } }).rate.toFixed(),
    );

    const exact = await t.admin('PUT', '/admin/v1/prices/DOGE', { price_usd: '0.123456789012345678' });
    assert.equal(exact.statusCode, 200, exact.body);
    assert.equal(rawNumber(exact.body, 'price_usd'), '0.123456789012345678');
    const doge = (await listPrices()).body.match(/\{"symbol":"DOGE"[^}]*\}/)?.[0] ?? '';
    assert.equal(rawNumber(doge, 'static_price_usd'), '0.123456789012345678');
    assert.equal(rawNumber(doge, 'price_usd'), '0.123456789012345678');
  });

  it('bad bodies are 400 and change nothing', async () => {
    for (const payload of [
      { price_usd: 0 },
      { price_usd: '0' },
      { price_usd: '0.000' },
      { price_usd: -1 },
      { price_usd: '-1' },
      { price_usd: 'abc' },
      { price_usd: '1e5' },
      { price_usd: '1.0000000000000000001' },
      { price_usd: null },
      { price_usd: '70000', extra: 1 },
      {},
    ]) {
      const res = await t.admin('PUT', '/admin/v1/prices/BTC', payload);
      assertError(res, 400, 'bad_request');
    }
    const btc = (await listPrices()).entries.find((entry) => entry.symbol === 'BTC');
    assert.equal(btc?.static_price_usd, 70000);
    assert.equal(btc?.price_usd, 70000);
    assertError(await t.admin('PUT', '/admin/v1/prices/B-TC', { price_usd: '1' }), 400, 'bad_request');
  });

  it('without the admin token: 401', async () => {
    const url = '/admin/v1/prices/BTC';
    for (const headers of [{}, { authorization: 'Bearer wrong-token' }, { 'x-api-key': (await t.createPartner()).apiKey }]) {
      assertError(await t.app.inject({ method: 'PUT', url, payload: { price_usd: '1' }, headers }), 401, 'unauthorized');
      assertError(await t.app.inject({ method: 'GET', url: '/admin/v1/prices', headers }), 401, 'unauthorized');
    }
    const btc = (await listPrices()).entries.find((entry) => entry.symbol === 'BTC');
    assert.equal(btc?.static_price_usd, 70000);
  });
});
