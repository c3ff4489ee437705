import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Decimal } from '../../src/domain/money.js';
import { BinancePriceSource } from '../../src/pricing/binance-price-source.js';
import { CoinbasePriceSource } from '../../src/pricing/coinbase-price-source.js';
import { PriceBook } from '../../src/pricing/price-book.js';
import type { PriceBookOptions } from '../../src/pricing/price-book.js';
import { PriceFeedError } from '../../src/pricing/price-feed-error.js';
import type { PriceObservation, PriceSource } from '../../src/pricing/price-source.js';
import { fixture, reply, startFakeFeed } from './fake-feed-server.js';
import type { FakeFeed } from './fake-feed-server.js';

const T0 = Date.parse('2026-01-15T12:00:00.000Z');

const feeds: FakeFeed[] = [];
after(async () => {
  await Promise.all(feeds.map((f) => f.close()));
});

/** A manual clock shared by the book and the in-memory sources. */
function manualClock() {
  let nowMs = T0;
  return {
    now: () => new Date(nowMs),
    advance: (ms: number) => {
      nowMs += ms;
    },
  };
}

/** An in-memory PriceSource (the shape the operator's static table will have). */
function tableSource(name: string, prices: Record<string, string>, now: () => Date): PriceSource & { calls: number } {
  return {
    name,
    calls: 0,
    fetchPrices(symbols) {
      this.calls++;
      return Promise.resolve(
        symbols
          .filter((s) => prices[s] !== undefined)
          .map((s) => ({ symbol: s, priceUsd: new Decimal(prices[s] ?? ''), observedAt: now(), source: name })),
      );
    },
  };
}

function failingSource(name: string, error: Error = new PriceFeedError(name, 'network', 'connection refused')): PriceSource {
  return { name, fetchPrices: () => Promise.reject(error) };
}

function recorder() {
  const errors: { source: string; error: unknown }[] = [];
  const warnings: { obj: object; msg: string }[] = [];
  return {
    errors,
    warnings,
    options: {
      logger: { warn: (obj: object, msg: string) => warnings.push({ obj, msg }) },
      onSourceError: (source: string, error: unknown) => errors.push({ source, error }),
    } satisfies Partial<PriceBookOptions>,
  };
}

void describe('PriceBook', () => {
  void it('serves from the healthy feed when the other answers HTTP 500, and reports the failure', async () => {
    const broken = await startFakeFeed(reply(500, '{"code":-1000,"msg":"An unknown error occurred while processing the request."}'));
    const healthy = await startFakeFeed(reply(200, fixture('coinbase-exchange-rates-usd.json')));
    feeds.push(broken, healthy);
    const clock = manualClock();
    const rec = recorder();
    const book = new PriceBook({
      sources: [
        new BinancePriceSource({ baseUrl: broken.baseUrl, timeoutMs: 2_000, now: clock.now }),
        new CoinbasePriceSource({ baseUrl: healthy.baseUrl, timeoutMs: 2_000, now: clock.now }),
      ],
      symbols: ['BTC', 'USDT'],
      now: clock.now,
      ...rec.options,
    });

    await book.refresh();

    assert.equal(book.getPriceUsd('BTC')?.toString(), '62500');
    assert.equal(book.getPriceUsd('USDT')?.toString(), '0.9998000399920015996800639872025594881023');
    assert.deepEqual(book.getAggregatedPrice('BTC')?.sources, ['coinbase']);
    assert.equal(rec.errors.length, 1);
    assert.equal(rec.errors[0]?.source, 'binance');
    assert.ok(rec.errors[0]?.error instanceof PriceFeedError);
    assert.equal(rec.errors[0]?.error.kind, 'http_status');
    assert.equal(rec.warnings.length, 1);
    assert.deepEqual(rec.warnings[0]?.obj, { source: 'binance', err: rec.errors[0]?.error });
  });

  void it('takes the median across sources and drops an outlier', async () => {
    const clock = manualClock();
    const book = new PriceBook({
      sources: [
        tableSource('a', { BTC: '67000' }, clock.now),
        tableSource('b', { BTC: '67100' }, clock.now),
        tableSource('c', { BTC: '1000' }, clock.now),
      ],
      symbols: ['BTC'],
      now: clock.now,
    });
    await book.refresh();
    assert.equal(book.getPriceUsd('BTC')?.toString(), '67050');
    assert.deepEqual(book.getAggregatedPrice('BTC')?.outliers, ['c']);
  });

  void it('stops quoting once the last observations are older than maxAgeMs', async () => {
    const clock = manualClock();
    let healthy = true;
    const flaky: PriceSource = {
      name: 'flaky',
      fetchPrices: (symbols) =>
        healthy
          ? Promise.resolve(symbols.map((symbol) => ({ symbol, priceUsd: new Decimal('67000'), observedAt: clock.now(), source: 'flaky' })))
          : Promise.reject(new PriceFeedError('flaky', 'timeout', 'no answer')),
    };
    const rec = recorder();
    const book = new PriceBook({ sources: [flaky], symbols: ['BTC'], now: clock.now, maxAgeMs: 30_000, ...rec.options });

    await book.refresh();
    healthy = false;
    clock.advance(30_000);
    await book.refresh();
    // The failed poll keeps the previous observation, still within the bound...
    assert.equal(book.getPriceUsd('BTC')?.toString(), '67000');
    clock.advance(1);
    // ...until it ages out: no price, so no quote.
    assert.equal(book.getPriceUsd('BTC'), undefined);
    assert.deepEqual(rec.errors.map((e) => e.source), ['flaky']);
  });

  void it('bounds a source that ignores its AbortSignal with sourceTimeoutMs', async () => {
    const clock = manualClock();
    const rec = recorder();
    const hanging: PriceSource = { name: 'hanging', fetchPrices: () => new Promise<never>(() => undefined) };
    const book = new PriceBook({
      sources: [hanging, tableSource('table', { BTC: '67000' }, clock.now)],
      symbols: ['BTC'],
      now: clock.now,
      sourceTimeoutMs: 100,
      ...rec.options,
    });
    const started = performance.now();
    await book.refresh();
    assert.ok(performance.now() - started < 2_000);
    assert.equal(book.getPriceUsd('BTC')?.toString(), '67000');
    assert.equal(rec.errors[0]?.source, 'hanging');
    assert.ok(rec.errors[0]?.error instanceof PriceFeedError);
    assert.equal(rec.errors[0]?.error.kind, 'timeout');
  });

  void it('survives a source that throws synchronously or resolves to garbage', async () => {
    const clock = manualClock();
    const rec = recorder();
    const throwing: PriceSource = {
      name: 'throwing',
      fetchPrices: () => {
        throw new TypeError('bug in a source');
      },
    };
    const garbage = {
      name: 'garbage',
      fetchPrices: () => Promise.resolve('not an array' as unknown as PriceObservation[]),
    };
    const book = new PriceBook({
      sources: [throwing, garbage, tableSource('table', { BTC: '67000' }, clock.now)],
      symbols: ['BTC'],
      now: clock.now,
      ...rec.options,
    });
    await book.refresh();
    assert.equal(book.getPriceUsd('BTC')?.toString(), '67000');
    assert.deepEqual(rec.errors.map((e) => e.source).sort(), ['garbage', 'throwing']);
  });

  void it('drops zero, negative, non-finite, non-Decimal and null observations from any source and warns', async () => {
    const clock = manualClock();
    const rec = recorder();
    const sloppy: PriceSource = {
      name: 'sloppy',
      fetchPrices: () =>
        Promise.resolve([
          { symbol: 'BTC', priceUsd: new Decimal(0), observedAt: clock.now(), source: 'sloppy' },
          { symbol: 'ETH', priceUsd: new Decimal(-1), observedAt: clock.now(), source: 'sloppy' },
          { symbol: 'SOL', priceUsd: new Decimal(Infinity), observedAt: clock.now(), source: 'sloppy' },
          { symbol: 'XRP', priceUsd: new Decimal('0.5234'), observedAt: clock.now(), source: 'sloppy' },
          null as unknown as PriceObservation,
          { symbol: 'XLM', priceUsd: 0.1 as unknown as Decimal, observedAt: clock.now(), source: 'sloppy' },
          // Not asked for: ignored rather than stored.
          { symbol: 'SHIB', priceUsd: new Decimal('0.00002'), observedAt: clock.now(), source: 'sloppy' },
        ]),
    };
    const book = new PriceBook({
      sources: [sloppy],
      symbols: ['BTC', 'ETH', 'SOL', 'XRP', 'XLM'],
      now: clock.now,
      ...rec.options,
    });
    await book.refresh();
    assert.equal(book.getPriceUsd('BTC'), undefined);
    assert.equal(book.getPriceUsd('ETH'), undefined);
    assert.equal(book.getPriceUsd('SOL'), undefined);
    assert.equal(book.getPriceUsd('XRP')?.toString(), '0.5234');
    assert.equal(book.getPriceUsd('XLM'), undefined);
    assert.equal(book.getPriceUsd('SHIB'), undefined);
    assert.deepEqual(rec.warnings.map((w) => w.obj), [{ source: 'sloppy', unusable: 5 }]);
    assert.equal(rec.errors.length, 0);
  });

  void it('accepts a source added later, such as the static price table', async () => {
    const clock = manualClock();
    const book = new PriceBook({ sources: [tableSource('a', { TON: '7.1' }, clock.now)], symbols: ['TON'], now: clock.now });
    const table = tableSource('static-table', { TON: '7.3' }, clock.now);
    book.addSource(table);
    await book.refresh();
    assert.equal(table.calls, 1);
    assert.equal(book.getPriceUsd('TON')?.toString(), '7.2');
    assert.throws(() => book.addSource(tableSource('a', {}, clock.now)), /duplicate/);
  });

  void it('attributes observations to the source that returned them', async () => {
    const clock = manualClock();
    // Claims to be 'a' twice over; it must count once, as itself.
    const impostor: PriceSource = {
      name: 'impostor',
      fetchPrices: () => Promise.resolve([{ symbol: 'BTC', priceUsd: new Decimal('90000'), observedAt: clock.now(), source: 'a' }]),
    };
    const book = new PriceBook({
      sources: [tableSource('a', { BTC: '67000' }, clock.now), tableSource('b', { BTC: '67100' }, clock.now), impostor],
      symbols: ['BTC'],
      now: clock.now,
    });
    await book.refresh();
    const btc = book.getAggregatedPrice('BTC');
    assert.deepEqual(btc?.outliers, ['impostor']);
    assert.equal(btc?.priceUsd.toString(), '67050');
  });

  void it('joins a refresh already running instead of polling twice', async () => {
    const clock = manualClock();
    const table = tableSource('a', { BTC: '67000' }, clock.now);
    const book = new PriceBook({ sources: [table], symbols: ['BTC'], now: clock.now });
    await Promise.all([book.refresh(), book.refresh()]);
    assert.equal(table.calls, 1);
    await book.refresh();
    assert.equal(table.calls, 2);
  });

  void it('polls at once on start, and stop cancels a fetch in flight without counting it as a failure', async () => {
    const clock = manualClock();
    const rec = recorder();
    let seenSignal: AbortSignal | undefined;
    const slow: PriceSource = {
      name: 'slow',
      fetchPrices: (_symbols, signal) => {
        seenSignal = signal;
        return new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => reject(new PriceFeedError('slow', 'aborted', 'aborted')), { once: true });
        });
      },
    };
    const book = new PriceBook({ sources: [slow], symbols: ['BTC'], now: clock.now, pollIntervalMs: 60_000, ...rec.options });
    book.start();
    book.start(); // idempotent
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(seenSignal, 'start() polled immediately');
    assert.equal(seenSignal.aborted, false);
    const firstSignal = seenSignal;
    book.stop();
    assert.equal(firstSignal.aborted, true);

    // A restart polls again, with a live signal, once the cancelled poll has settled.
    book.start();
    for (let i = 0; i < 100 && seenSignal === firstSignal; i++) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.notEqual(seenSignal, firstSignal);
    assert.equal(seenSignal.aborted, false);
    book.stop();
    await book.refresh(); // settles the second aborted poll
    assert.equal(rec.errors.length, 0);
  });

  void it('reports a throwing onSourceError callback instead of crashing', async () => {
    const clock = manualClock();
    const warnings: string[] = [];
    const book = new PriceBook({
      sources: [failingSource('down')],
      symbols: ['BTC'],
      now: clock.now,
      logger: { warn: (_obj, msg) => warnings.push(msg) },
      onSourceError: () => {
        throw new Error('metrics registry gone');
      },
    });
    await book.refresh();
    assert.deepEqual(warnings, ['price source fetch failed', 'onSourceError callback threw']);
  });

  void it('has no price for a symbol nobody reports', async () => {
    const clock = manualClock();
    const book = new PriceBook({ sources: [tableSource('a', { BTC: '67000' }, clock.now)], symbols: ['BTC', 'XLM'], now: clock.now });
    assert.equal(book.getPriceUsd('BTC'), undefined, 'nothing before the first refresh');
    await book.refresh();
    assert.equal(book.getPriceUsd('XLM'), undefined);
  });
});
