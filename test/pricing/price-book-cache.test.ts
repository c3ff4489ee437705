import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Decimal } from '../../src/domain/money.js';
import fc from 'fast-check';
import { aggregatePrices } from '../../src/pricing/price-aggregator.js';
import { PriceBook } from '../../src/pricing/price-book.js';
import type { PriceObservation, PriceSource } from '../../src/pricing/price-source.js';

const T0 = Date.parse('2026-01-15T12:00:00.000Z');

/** A clock the test sets to any instant, backwards included. */
function manualClock() {
  let nowMs = T0;
  return {
    now: () => new Date(nowMs),
    set: (ms: number) => {
      nowMs = ms;
    },
    advance: (ms: number) => {
      nowMs += ms;
    },
  };
}

/**
 * An in-memory source whose next answer the test sets: per symbol a price and how far from the
 * source's clock the observation is dated (negative = in the past, positive = future-dated).
 */
function scriptedSource(name: string, now: () => Date) {
  const quotes = new Map<string, { price: string; offsetMs: number }>();
  const source: PriceSource = {
    name,
    fetchPrices: (symbols) =>
      Promise.resolve(
        symbols.flatMap((symbol) => {
          const quote = quotes.get(symbol);
          if (quote === undefined) return [];
          const observedAt = new Date(now().getTime() + quote.offsetMs);
          return [{ symbol, priceUsd: new Decimal(quote.price), observedAt, source: name }];
        }),
      ),
  };
  return {
    source,
    quote: (symbol: string, price: string, offsetMs = 0) => quotes.set(symbol, { price, offsetMs }),
    clear: () => quotes.clear(),
  };
}

void describe('PriceBook aggregate cache', () => {
  void it('hands out the same instance between polls, and a poll that changes an observation changes it', async () => {
    const clock = manualClock();
    const a = scriptedSource('a', clock.now);
    const b = scriptedSource('b', clock.now);
    a.quote('BTC', '67000');
    b.quote('BTC', '67100');
    a.quote('ETH', '3500');
    const book = new PriceBook({ sources: [a.source, b.source], symbols: ['BTC', 'ETH'], now: clock.now });
    await book.refresh();

    const first = book.getAggregatedPrice('BTC');
    assert.equal(first?.priceUsd.toString(), '67050');
    clock.advance(5_000);
    assert.equal(book.getAggregatedPrice('BTC'), first, 'the same object while nothing changed');
    assert.equal(book.getPriceUsd('BTC'), first?.priceUsd, 'the same Decimal instance');
    assert.equal(book.getPriceUsd('ETH')?.toString(), '3500');
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first.sources) && Object.isFrozen(first.outliers), 'shared, so frozen');

    b.quote('BTC', '67300');
    await book.refresh();
    const second = book.getAggregatedPrice('BTC');
    assert.equal(second?.priceUsd.toString(), '67150');
    assert.notEqual(second, first);
    assert.equal(book.getAggregatedPrice('BTC'), second);
  });

  void it('a source failing keeps the cached price until the observation ages out, exactly as before', async () => {
    const clock = manualClock();
    const a = scriptedSource('a', clock.now);
    a.quote('BTC', '67000');
    const book = new PriceBook({ sources: [a.source], symbols: ['BTC'], now: clock.now, maxAgeMs: 30_000 });
    await book.refresh();
    const price = book.getPriceUsd('BTC');
    assert.equal(price?.toString(), '67000');

    a.clear(); // the next poll observes nothing: the old observation stays and ages
    clock.advance(29_999);
    await book.refresh();
    assert.equal(book.getPriceUsd('BTC'), price);
    clock.advance(1); // observedAt + maxAgeMs: still fresh
    assert.equal(book.getPriceUsd('BTC'), price);
    clock.advance(1); // one millisecond later: gone
    assert.equal(book.getPriceUsd('BTC'), undefined);
    assert.equal(book.getAggregatedPrice('BTC'), undefined);
    clock.advance(60_000);
    assert.equal(book.getPriceUsd('BTC'), undefined);

    // A clock moved backwards sees the observation fresh again.
    clock.set(T0 + 30_000);
    assert.equal(book.getPriceUsd('BTC')?.toString(), '67000');
    clock.set(T0 - 30_000);
    assert.equal(book.getPriceUsd('BTC')?.toString(), '67000');
    clock.set(T0 - 30_001);
    assert.equal(book.getPriceUsd('BTC'), undefined);
  });

  void it('a future-dated observation becomes fresh exactly at observedAt − maxAgeMs', async () => {
    const clock = manualClock();
    const a = scriptedSource('a', clock.now);
    a.quote('BTC', '67000', 10_000); // dated 10 s ahead of the clock
    const book = new PriceBook({ sources: [a.source], symbols: ['BTC'], now: clock.now, maxAgeMs: 3_000 });
    await book.refresh();

    assert.equal(book.getPriceUsd('BTC'), undefined, 'too far in the future');
    clock.set(T0 + 6_999);
    assert.equal(book.getPriceUsd('BTC'), undefined, 'cached "no price" ends at the boundary, not before');
    clock.set(T0 + 7_000);
    const price = book.getPriceUsd('BTC');
    assert.equal(price?.toString(), '67000');
    clock.set(T0 + 13_000);
    assert.equal(book.getPriceUsd('BTC'), price);
    clock.set(T0 + 13_001);
    assert.equal(book.getPriceUsd('BTC'), undefined);
    clock.set(T0 + 6_999);
    assert.equal(book.getPriceUsd('BTC'), undefined, 'backwards past the lower boundary');
    clock.set(T0 + 7_000);
    assert.equal(book.getPriceUsd('BTC')?.toString(), '67000');
  });

  void it('the median moves exactly when one of several sources turns stale', async () => {
    const clock = manualClock();
    const a = scriptedSource('a', clock.now);
    const b = scriptedSource('b', clock.now);
    const c = scriptedSource('c', clock.now);
    a.quote('BTC', '67000', -2_000); // ages out first
    b.quote('BTC', '67100');
    c.quote('BTC', '67200');
    const book = new PriceBook({ sources: [a.source, b.source, c.source], symbols: ['BTC'], now: clock.now, maxAgeMs: 10_000 });
    await book.refresh();
    assert.equal(book.getPriceUsd('BTC')?.toString(), '67100');
    clock.set(T0 + 8_000);
    assert.equal(book.getPriceUsd('BTC')?.toString(), '67100');
    clock.set(T0 + 8_001);
    assert.equal(book.getPriceUsd('BTC')?.toString(), '67150');
    assert.deepEqual(book.getAggregatedPrice('BTC')?.sources, ['b', 'c']);
  });

  void it('matches aggregatePrices over the same observations at every instant, polls and clock jumps included', async () => {
    const maxAgeMs = 5; // tiny, so random steps cross boundaries often
    const sourceNames = ['a', 'b', 'c'];
    // Prices close enough to agree, and two far enough to be outliers; dates around the poll.
    const observationArb = fc.record({
      price: fc.constantFrom('100', '101', '102', '99.5', '130', '70'),
      offsetMs: fc.integer({ min: -8, max: 8 }),
    });
    const step = fc.oneof(
      fc.record({ kind: fc.constant('move' as const), deltaMs: fc.integer({ min: -12, max: 12 }) }),
      fc.record({
        kind: fc.constant('poll' as const),
        // Per source: no observation this poll (keeps the last one), or a price and a date offset.
        quotes: fc.tuple(...sourceNames.map(() => fc.option(observationArb, { nil: undefined }))),
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
        const clock = manualClock();
        const scripted = sourceNames.map((name) => scriptedSource(name, clock.now));
        const book = new PriceBook({ sources: scripted.map((s) => s.source), symbols: ['BTC'], now: clock.now, maxAgeMs });
        /** The test's own record of what the book holds: the last observation per source. */
        const held = new Map<string, PriceObservation>();
        const fresh = (o: PriceObservation, ms: number) => Math.abs(ms - o.observedAt.getTime()) <= maxAgeMs;
        let previous = { value: book.getAggregatedPrice('BTC'), nowMs: clock.now().getTime() };
        for (const s of steps) {
          let polled = false;
          if (s.kind === 'move') {
            clock.advance(s.deltaMs);
          } else {
            s.quotes.forEach((quote, i) => {
              const source = scripted[i];
              const name = sourceNames[i];
              if (source === undefined || name === undefined) throw new Error('unreachable');
              source.clear();
              if (quote === undefined) return;
              source.quote('BTC', quote.price, quote.offsetMs);
              const observedAt = new Date(clock.now().getTime() + quote.offsetMs);
              held.set(name, { symbol: 'BTC', priceUsd: new Decimal(quote.price), observedAt, source: name });
            });
            await book.refresh();
            polled = true;
          }
          const nowMs = clock.now().getTime();
          const expected = aggregatePrices([...held.values()], { now: clock.now(), maxAgeMs, maxDeviationPct: 5 }).get('BTC');
          const actual = book.getAggregatedPrice('BTC');
          assert.deepEqual(actual === undefined ? undefined : { ...actual }, expected);
          assert.equal(book.getAggregatedPrice('BTC'), actual, 'read twice at one instant: the same object');
          // No poll, and no observation changed freshness at any instant on the way: the cache
          // must have been reused, not recomputed.
          const low = Math.min(previous.nowMs, nowMs);
          const high = Math.max(previous.nowMs, nowMs);
          const steady = [...held.values()].every((o) => {
            for (let ms = low; ms <= high; ms++) if (fresh(o, ms) !== fresh(o, previous.nowMs)) return false;
            return true;
          });
          if (!polled && steady) assert.equal(actual, previous.value);
          previous = { value: actual, nowMs };
        }
      }),
      { numRuns: 200 },
    );
  });
});
