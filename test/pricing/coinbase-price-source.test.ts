import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Decimal } from '../../src/domain/money.js';
import { CoinbasePriceSource } from '../../src/pricing/coinbase-price-source.js';
import { aggregatePrices } from '../../src/pricing/price-aggregator.js';
import { PriceFeedError } from '../../src/pricing/price-feed-error.js';
import { PRICE_SYMBOLS } from '../../src/pricing/price-source.js';
import type { PriceObservation } from '../../src/pricing/price-source.js';
import { fixture, neverAnswer, reply, startFakeFeed } from './fake-feed-server.js';
import type { FakeFeed } from './fake-feed-server.js';

const T0 = new Date('2026-01-15T12:00:00.000Z');
const feeds: FakeFeed[] = [];
after(async () => {
  await Promise.all(feeds.map((f) => f.close()));
});

async function coinbaseReplying(status: number, body: string) {
  const feed = await startFakeFeed(reply(status, body));
  feeds.push(feed);
  return { feed, source: new CoinbasePriceSource({ baseUrl: feed.baseUrl, timeoutMs: 2_000, now: () => T0 }) };
}

function priceMap(observations: PriceObservation[]): Record<string, string> {
  return Object.fromEntries(observations.map((o) => [o.symbol, o.priceUsd.toString()]));
}

/** The fixture with one currency's rate replaced by a raw JSON value. */
function fixtureWith(code: string, rawRate: string): string {
  return fixture('coinbase-exchange-rates-usd.json').replace(new RegExp(`("${code}":)"[^"]*"`), `$1${rawRate}`);
}

void describe('CoinbasePriceSource', () => {
  void it('asks for USD-based rates and returns 1 / rate as exact Decimals', async () => {
    const { feed, source } = await coinbaseReplying(200, fixture('coinbase-exchange-rates-usd.json'));
    const observations = await source.fetchPrices(PRICE_SYMBOLS, AbortSignal.timeout(5_000));

    assert.deepEqual(feed.requests, ['/v2/exchange-rates?currency=USD']);
    assert.deepEqual(priceMap(observations), {
      BTC: '62500',
      ETH: '3200',
      USDT: '0.9998000399920015996800639872025594881023', // 1 / 1.0002 to 40 significant digits, rounded toward zero
      USDC: '1',
      LTC: '80',
      DOGE: '0.16',
      TRX: '0.25',
      BNB: '625',
      SOL: '160',
      XRP: '2.5',
      XLM: '0.125',
      TON: '5',
    });
    for (const o of observations) {
      assert.ok(o.priceUsd instanceof Decimal);
      assert.equal(o.source, 'coinbase');
      assert.equal(o.observedAt.getTime(), T0.getTime());
    }
  });

  void it('ignores fiat and unknown symbols and makes no request when nothing maps', async () => {
    const { feed, source } = await coinbaseReplying(200, fixture('coinbase-exchange-rates-usd.json'));
    assert.deepEqual(priceMap(await source.fetchPrices(['EUR', 'SOL'], AbortSignal.timeout(5_000))), { SOL: '160' });
    assert.deepEqual(await source.fetchPrices(['EUR', 'NOPE'], AbortSignal.timeout(5_000)), []);
    assert.equal(feed.requests.length, 1);
  });

  for (const [label, raw] of [
    ['zero', '"0"'],
    ['negative', '"-0.000016"'],
    ['non-numeric', '"abc"'],
    ['Infinity text', '"Infinity"'],
    ['empty', '""'],
    ['object', '{"amount":"0.000016"}'],
    ['absurd (price above the plausible band)', '"1e-9"'],
    ['absurd (price below the plausible band)', '"1e9"'],
  ] as const) {
    void it(`drops a ${label} rate and keeps the others`, async () => {
      const { source } = await coinbaseReplying(200, fixtureWith('BTC', raw));
      assert.deepEqual(priceMap(await source.fetchPrices(['BTC', 'ETH'], AbortSignal.timeout(5_000))), { ETH: '3200' });
    });
  }

  void it('drops a currency missing from the rates', async () => {
    const body = '{"data":{"currency":"USD","rates":{"ETH":"0.0003125","EUR":"0.9234"}}}';
    const { source } = await coinbaseReplying(200, body);
    assert.deepEqual(priceMap(await source.fetchPrices(['BTC', 'ETH'], AbortSignal.timeout(5_000))), { ETH: '3200' });
  });

  void it('reads a rate sent as a JSON number without going through a float', async () => {
    const { source } = await coinbaseReplying(200, fixtureWith('BTC', '0.000016'));
    assert.deepEqual(priceMap(await source.fetchPrices(['BTC'], AbortSignal.timeout(5_000))), { BTC: '62500' });
  });

  for (const [label, body] of [
    ['truncated JSON', '{"data":{"currency":"USD","rates":{"BTC":"0.00001'],
    ['the error envelope with status 200', '{"errors":[{"id":"not_found","message":"Not found"}]}'],
    ['rates for another base currency', fixture('coinbase-exchange-rates-usd.json').replace('"currency":"USD"', '"currency":"EUR"')],
    ['rates as an array', '{"data":{"currency":"USD","rates":[["BTC","0.000016"]]}}'],
    ['a bare array', '[]'],
  ] as const) {
    void it(`rejects ${label} with a malformed PriceFeedError`, async () => {
      const { source } = await coinbaseReplying(200, body);
      await assert.rejects(source.fetchPrices(['BTC'], AbortSignal.timeout(5_000)), (error: unknown) => {
        assert.ok(error instanceof PriceFeedError);
        assert.equal(error.kind, 'malformed');
        assert.equal(error.source, 'coinbase');
        return true;
      });
    });
  }

  void it('rejects HTTP 500 with an http_status PriceFeedError', async () => {
    const { source } = await coinbaseReplying(500, '{"errors":[{"id":"internal_server_error","message":"Internal server error"}]}');
    await assert.rejects(source.fetchPrices(['BTC'], AbortSignal.timeout(5_000)), (error: unknown) => {
      assert.ok(error instanceof PriceFeedError);
      assert.equal(error.kind, 'http_status');
      assert.equal(error.status, 500);
      assert.match(error.message, /internal_server_error/);
      return true;
    });
  });

  void it('gives up with a timeout PriceFeedError when the server never answers', async () => {
    const feed = await startFakeFeed(neverAnswer);
    feeds.push(feed);
    const source = new CoinbasePriceSource({ baseUrl: feed.baseUrl, timeoutMs: 200 });
    const started = performance.now();
    await assert.rejects(source.fetchPrices(['BTC'], new AbortController().signal), { name: 'PriceFeedError', kind: 'timeout' });
    const elapsed = performance.now() - started;
    assert.ok(elapsed >= 150 && elapsed < 2_000, `took ${elapsed} ms`);
  });

  void it('times out a body that starts but never finishes', async () => {
    const feed = await startFakeFeed((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data":{"currency":"USD","rates":{');
    });
    feeds.push(feed);
    const source = new CoinbasePriceSource({ baseUrl: feed.baseUrl, timeoutMs: 200 });
    await assert.rejects(source.fetchPrices(['BTC'], new AbortController().signal), { name: 'PriceFeedError', kind: 'timeout' });
  });

  void it('refuses a body larger than the cap', async () => {
    const padding = '"PAD":"1",'.repeat(200);
    const body = fixture('coinbase-exchange-rates-usd.json').replace('"rates":{', `"rates":{${padding}`);
    const feed = await startFakeFeed(reply(200, body));
    feeds.push(feed);
    const source = new CoinbasePriceSource({ baseUrl: feed.baseUrl, timeoutMs: 2_000, maxBodyBytes: 1_000 });
    await assert.rejects(source.fetchPrices(['BTC'], AbortSignal.timeout(5_000)), { name: 'PriceFeedError', kind: 'too_large' });
  });

  void it('produces observations the aggregator ages out after maxAgeMs', async () => {
    const { source } = await coinbaseReplying(200, fixture('coinbase-exchange-rates-usd.json'));
    const observations = await source.fetchPrices(['ETH'], AbortSignal.timeout(5_000));
    const policy = { maxAgeMs: 60_000, maxDeviationPct: 5 };
    assert.equal(aggregatePrices(observations, { ...policy, now: new Date(T0.getTime() + 60_000) }).get('ETH')?.priceUsd.toString(), '3200');
    assert.equal(aggregatePrices(observations, { ...policy, now: new Date(T0.getTime() + 60_001) }).get('ETH'), undefined);
  });

  void it('is dropped by the aggregator when its price is an outlier', async () => {
    // Coinbase says ETH is 3200 while two other sources agree near 3456.
    const { source } = await coinbaseReplying(200, fixture('coinbase-exchange-rates-usd.json'));
    const others: PriceObservation[] = [
      { symbol: 'ETH', priceUsd: new Decimal('3456.78'), observedAt: T0, source: 'binance' },
      { symbol: 'ETH', priceUsd: new Decimal('3458.02'), observedAt: T0, source: 'kraken' },
    ];
    const fromCoinbase = await source.fetchPrices(['ETH'], AbortSignal.timeout(5_000));
    const eth = aggregatePrices([...fromCoinbase, ...others], { now: T0, maxAgeMs: 60_000, maxDeviationPct: 5 }).get('ETH');
    assert.equal(eth?.priceUsd.toString(), '3457.4');
    assert.deepEqual(eth?.outliers, ['coinbase']);
  });
});
