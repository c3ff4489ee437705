import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Decimal } from '../../src/domain/money.js';
import { BinancePriceSource } from '../../src/pricing/binance-price-source.js';
import { aggregatePrices } from '../../src/pricing/price-aggregator.js';
import { PriceFeedError } from '../../src/pricing/price-feed-error.js';
import { PRICE_SYMBOLS } from '../../src/pricing/price-source.js';
import type { PriceObservation, PriceSource } from '../../src/pricing/price-source.js';
import { fixture, neverAnswer, reply, startFakeFeed } from './fake-feed-server.js';
import type { FakeFeed } from './fake-feed-server.js';

const T0 = new Date('2026-01-15T12:00:00.000Z');
const feeds: FakeFeed[] = [];
after(async () => {
  await Promise.all(feeds.map((f) => f.close()));
});

async function binanceReplying(status: number, body: string, timeoutMs = 2_000) {
  const feed = await startFakeFeed(reply(status, body));
  feeds.push(feed);
  return { feed, source: new BinancePriceSource({ baseUrl: feed.baseUrl, timeoutMs, now: () => T0 }) };
}

function priceMap(observations: PriceObservation[]): Record<string, string> {
  return Object.fromEntries(observations.map((o) => [o.symbol, o.priceUsd.toString()]));
}

/** The fixture with one pair's price replaced by a raw JSON value. */
function fixtureWith(pair: string, rawPrice: string): string {
  return fixture('binance-ticker-price.json').replace(
    new RegExp(`("symbol":"${pair}","price":)"[^"]*"`),
    `$1${rawPrice}`,
  );
}

void describe('BinancePriceSource', () => {
  void it('asks for the mapped USDT pairs plus USDCUSDT and returns exact USD prices', async () => {
    const { feed, source } = await binanceReplying(200, fixture('binance-ticker-price.json'));
    const observations = await source.fetchPrices(PRICE_SYMBOLS, AbortSignal.timeout(5_000));

    assert.equal(feed.requests.length, 1);
    const url = new URL(feed.requests[0] ?? '', feed.baseUrl);
    assert.equal(url.pathname, '/api/v3/ticker/price');
    const pairs = JSON.parse(url.searchParams.get('symbols') ?? '[]') as string[];
    assert.deepEqual(
      [...pairs].sort(),
      ['BNBUSDT', 'BTCUSDT', 'DOGEUSDT', 'ETHUSDT', 'LTCUSDT', 'SOLUSDT', 'TONUSDT', 'TRXUSDT', 'USDCUSDT', 'XLMUSDT', 'XRPUSDT'],
    );

    // USDCUSDT is 1.00000000 in the fixture, so USD prices equal the USDT quotes digit for digit.
    assert.deepEqual(priceMap(observations), {
      BTC: '67012.34',
      ETH: '3456.78',
      USDT: '1',
      LTC: '84.21',
      DOGE: '0.16234',
      TRX: '0.12345',
      BNB: '589.1',
      SOL: '145.67',
      XRP: '0.5234',
      XLM: '0.1012',
      TON: '7.123',
    });
    assert.ok(!observations.some((o) => o.symbol === 'USDC'), 'USDC is the reference, not an observation');
    for (const o of observations) {
      assert.ok(o.priceUsd instanceof Decimal);
      assert.equal(o.source, 'binance');
      assert.equal(o.observedAt.getTime(), T0.getTime());
    }
  });

  void it('converts USDT quotes to USD through USDCUSDT', async () => {
    const { source } = await binanceReplying(200, fixtureWith('USDCUSDT', '"1.00020000"'));
    const prices = priceMap(await source.fetchPrices(['BTC', 'ETH', 'USDT'], AbortSignal.timeout(5_000)));
    // 67012.34 / 1.0002, 3456.78 / 1.0002 and 1 / 1.0002 to 40 significant digits, rounded toward zero.
    assert.deepEqual(prices, {
      BTC: '66998.94021195760847830433913217356528694',
      ETH: '3456.088782243551289742051589682063587282',
      USDT: '0.9998000399920015996800639872025594881023',
    });
  });

  void it('only requests the pairs for the symbols asked, and nothing for unknown symbols', async () => {
    const { feed, source } = await binanceReplying(200, fixture('binance-ticker-price.json'));
    const observations = await source.fetchPrices(['ETH', 'NOPE'], AbortSignal.timeout(5_000));
    assert.deepEqual(priceMap(observations), { ETH: '3456.78' });
    const url = new URL(feed.requests[0] ?? '', feed.baseUrl);
    assert.deepEqual(JSON.parse(url.searchParams.get('symbols') ?? ''), ['USDCUSDT', 'ETHUSDT']);

    assert.deepEqual(await source.fetchPrices(['NOPE'], AbortSignal.timeout(5_000)), []);
    assert.equal(feed.requests.length, 1, 'no request when nothing maps');
  });

  for (const [label, raw] of [
    ['zero', '"0.00000000"'],
    ['negative', '"-67012.34000000"'],
    ['non-numeric', '"n/a"'],
    ['NaN text', '"NaN"'],
    ['Infinity text', '"Infinity"'],
    ['hex text', '"0x10"'],
    ['null', 'null'],
    ['absurdly large', '"1e30"'],
    ['a JSON number zero', '0'],
  ] as const) {
    void it(`drops a ${label} price and keeps the others`, async () => {
      const { source } = await binanceReplying(200, fixtureWith('BTCUSDT', raw));
      const prices = priceMap(await source.fetchPrices(['BTC', 'ETH'], AbortSignal.timeout(5_000)));
      assert.deepEqual(prices, { ETH: '3456.78' });
    });
  }

  void it('reads a price sent as a JSON number without going through a float', async () => {
    // 17 significant digits: JSON.parse would turn this into 67012.34567890123.
    const { source } = await binanceReplying(200, fixtureWith('BTCUSDT', '67012.345678901234'));
    const prices = priceMap(await source.fetchPrices(['BTC'], AbortSignal.timeout(5_000)));
    assert.deepEqual(prices, { BTC: '67012.345678901234' });
  });

  void it('drops a pair missing from the answer', async () => {
    const body = JSON.stringify([{ symbol: 'USDCUSDT', price: '1.00000000' }, { symbol: 'ETHUSDT', price: '3456.78000000' }]);
    const { source } = await binanceReplying(200, body);
    assert.deepEqual(priceMap(await source.fetchPrices(['BTC', 'ETH'], AbortSignal.timeout(5_000))), { ETH: '3456.78' });
  });

  void it('fails as malformed when USDCUSDT is unusable, since nothing can be converted to USD', async () => {
    const { source } = await binanceReplying(200, fixtureWith('USDCUSDT', '"0.00000000"'));
    await assert.rejects(source.fetchPrices(['BTC'], AbortSignal.timeout(5_000)), { name: 'PriceFeedError', kind: 'malformed' });
  });

  for (const [label, body] of [
    ['truncated JSON', '[{"symbol":"BTCUSDT","price":"670'],
    ['HTML', '<html><body>Service Unavailable</body></html>'],
    ['an object instead of an array', '{"symbol":"BTCUSDT","price":"67012.34000000"}'],
    ['an empty body', ''],
  ] as const) {
    void it(`rejects ${label} with a malformed PriceFeedError`, async () => {
      const { source } = await binanceReplying(200, body);
      await assert.rejects(source.fetchPrices(['BTC'], AbortSignal.timeout(5_000)), (error: unknown) => {
        assert.ok(error instanceof PriceFeedError);
        assert.equal(error.kind, 'malformed');
        assert.equal(error.source, 'binance');
        return true;
      });
    });
  }

  void it('rejects HTTP 500 with an http_status PriceFeedError', async () => {
    const { source } = await binanceReplying(500, '{"code":-1000,"msg":"An unknown error occurred while processing the request."}');
    await assert.rejects(source.fetchPrices(['BTC'], AbortSignal.timeout(5_000)), (error: unknown) => {
      assert.ok(error instanceof PriceFeedError);
      assert.equal(error.kind, 'http_status');
      assert.equal(error.status, 500);
      return true;
    });
  });

  void it("surfaces Binance's invalid-symbol answer (HTTP 400) in the error", async () => {
    const { source } = await binanceReplying(400, '{"code":-1121,"msg":"Invalid symbol."}');
    await assert.rejects(source.fetchPrices(['BTC'], AbortSignal.timeout(5_000)), (error: unknown) => {
      assert.ok(error instanceof PriceFeedError);
      assert.equal(error.status, 400);
      assert.match(error.message, /Invalid symbol/);
      return true;
    });
  });

  void it('gives up with a timeout PriceFeedError when the server never answers', async () => {
    const feed = await startFakeFeed(neverAnswer);
    feeds.push(feed);
    const source = new BinancePriceSource({ baseUrl: feed.baseUrl, timeoutMs: 200 });
    const started = performance.now();
    await assert.rejects(source.fetchPrices(['BTC'], new AbortController().signal), { name: 'PriceFeedError', kind: 'timeout' });
    const elapsed = performance.now() - started;
    assert.ok(elapsed >= 150 && elapsed < 2_000, `took ${elapsed} ms`);
  });

  void it("stops when the caller's signal aborts", async () => {
    const feed = await startFakeFeed(neverAnswer);
    feeds.push(feed);
    const source = new BinancePriceSource({ baseUrl: feed.baseUrl, timeoutMs: 10_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(source.fetchPrices(['BTC'], controller.signal), { name: 'PriceFeedError', kind: 'aborted' });
  });

  void it('rejects with a network PriceFeedError when nothing listens', async () => {
    const feed = await startFakeFeed(neverAnswer);
    await feed.close();
    const source = new BinancePriceSource({ baseUrl: feed.baseUrl, timeoutMs: 2_000 });
    await assert.rejects(source.fetchPrices(['BTC'], AbortSignal.timeout(5_000)), { name: 'PriceFeedError', kind: 'network' });
  });

  void it('produces observations the aggregator ages out after maxAgeMs', async () => {
    const { source } = await binanceReplying(200, fixture('binance-ticker-price.json'));
    const observations = await source.fetchPrices(['BTC'], AbortSignal.timeout(5_000));
    const policy = { maxAgeMs: 30_000, maxDeviationPct: 5 };

    const atBound = aggregatePrices(observations, { ...policy, now: new Date(T0.getTime() + 30_000) });
    assert.equal(atBound.get('BTC')?.priceUsd.toString(), '67012.34');
    const stale = aggregatePrices(observations, { ...policy, now: new Date(T0.getTime() + 30_001) });
    assert.equal(stale.get('BTC'), undefined);
  });

  void it('is dropped by the aggregator when its price is an outlier', async () => {
    // Binance says 80 000 while two other sources agree near 67 000.
    const { source } = await binanceReplying(200, fixtureWith('BTCUSDT', '"80000.00000000"'));
    const others: PriceObservation[] = [
      { symbol: 'BTC', priceUsd: new Decimal('67000'), observedAt: T0, source: 'coinbase' },
      { symbol: 'BTC', priceUsd: new Decimal('67100'), observedAt: T0, source: 'kraken' },
    ];
    const fromBinance = await source.fetchPrices(['BTC'], AbortSignal.timeout(5_000));
    const btc = aggregatePrices([...fromBinance, ...others], { now: T0, maxAgeMs: 30_000, maxDeviationPct: 5 }).get('BTC');
    assert.equal(btc?.priceUsd.toString(), '67050');
    assert.deepEqual(btc?.outliers, ['binance']);
    assert.deepEqual(btc?.sources, ['coinbase', 'kraken']);
  });

  void it('satisfies the PriceSource interface with a configurable name', () => {
    const source: PriceSource = new BinancePriceSource({ name: 'binance-eu' });
    assert.equal(source.name, 'binance-eu');
  });
});
