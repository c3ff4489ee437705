import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Decimal } from '../../src/domain/money.js';
import fc from 'fast-check';
import { aggregatePrices, median } from '../../src/pricing/price-aggregator.js';
import type { PriceObservation } from '../../src/pricing/price-source.js';

const NOW = new Date('2026-01-15T12:00:00.000Z');
const POLICY = { now: NOW, maxAgeMs: 60_000, maxDeviationPct: 5 };

function obs(source: string, price: string, ageMs = 0, symbol = 'BTC'): PriceObservation {
  return { symbol, priceUsd: new Decimal(price), observedAt: new Date(NOW.getTime() - ageMs), source };
}

const d = (values: string[]) => values.map((v) => new Decimal(v));

void describe('median', () => {
  void it('takes the middle value of an odd count, whatever the input order', () => {
    assert.equal(median(d(['3', '1', '2'])).toString(), '2');
    assert.equal(median(d(['67012.34'])).toString(), '67012.34');
  });

  void it('takes the mean of the two middle values of an even count', () => {
    assert.equal(median(d(['4', '1', '3', '2'])).toString(), '2.5');
    assert.equal(median(d(['0.1', '0.2'])).toString(), '0.15');
  });

  void it('is exact even past the default 20 significant digits', () => {
    // The mean has 22 significant digits; at the default 20 the last ones would be lost.
    const a = '99999.999999999999999';
    const b = '100000.00000000000001';
    assert.equal(median(d([a, b])).toString(), '100000.0000000000000045');
  });

  void it('refuses an empty list', () => {
    assert.throws(() => median([]), RangeError);
  });

  void it('lies between the smallest and largest value (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 10_000_000 }), { minLength: 1, maxLength: 9 }), (cents) => {
        const values = cents.map((c) => new Decimal(c).div(100));
        const m = median(values);
        return m.gte(Decimal.min(...values)) && m.lte(Decimal.max(...values));
      }),
    );
  });
});

void describe('aggregatePrices', () => {
  void it('prices each symbol from its own observations', () => {
    const result = aggregatePrices(
      [obs('a', '67000'), obs('b', '67100'), obs('a', '3456.78', 0, 'ETH'), obs('b', '3460', 0, 'ETH')],
      POLICY,
    );
    assert.equal(result.get('BTC')?.priceUsd.toString(), '67050');
    assert.equal(result.get('ETH')?.priceUsd.toString(), '3458.39');
    assert.deepEqual([...result.keys()].sort(), ['BTC', 'ETH']);
  });

  void it('uses the median of an odd number of sources', () => {
    const btc = aggregatePrices([obs('a', '67000'), obs('b', '67300'), obs('c', '67100')], POLICY).get('BTC');
    assert.equal(btc?.priceUsd.toString(), '67100');
    assert.deepEqual(btc?.sources, ['a', 'b', 'c']);
    assert.deepEqual(btc?.outliers, []);
  });

  void it('uses the mean of the middle two for an even number of sources', () => {
    const btc = aggregatePrices([obs('a', '67000'), obs('b', '67100'), obs('c', '67300'), obs('d', '67200')], POLICY).get('BTC');
    assert.equal(btc?.priceUsd.toString(), '67150');
  });

  void it('freshUntil: the oldest observation in the price plus maxAgeMs (an outlier does not count); at it the price still stands, after it not', () => {
    const observations = [obs('a', '67000', 10_000), obs('b', '67100', 25_000), obs('c', '80000', 50_000)];
    const btc = aggregatePrices(observations, POLICY).get('BTC');
    assert.equal(btc?.freshUntil.toISOString(), new Date(NOW.getTime() - 25_000 + 60_000).toISOString());
    const at = aggregatePrices(observations, { ...POLICY, now: btc?.freshUntil ?? NOW }).get('BTC');
    assert.equal(at?.priceUsd.toString(), btc?.priceUsd.toString());
    const after = aggregatePrices(observations, { ...POLICY, now: new Date((btc?.freshUntil.getTime() ?? 0) + 1) }).get('BTC');
    assert.notEqual(after?.priceUsd.toString(), btc?.priceUsd.toString());
  });

  void it('drops an outlier source and takes the median of the rest', () => {
    const btc = aggregatePrices([obs('a', '67000'), obs('b', '67100'), obs('c', '80000')], POLICY).get('BTC');
    // First median 67100; 80000 is 19 % away. Median of the rest: (67000 + 67100) / 2.
    assert.equal(btc?.priceUsd.toString(), '67050');
    assert.deepEqual(btc?.outliers, ['c']);
    assert.deepEqual(btc?.sources, ['a', 'b']);
  });

  void it('keeps a source exactly at the deviation bound and drops one just past it', () => {
    const atBound = aggregatePrices([obs('a', '100'), obs('b', '100'), obs('c', '105')], POLICY).get('BTC');
    assert.deepEqual(atBound?.outliers, []);
    const past = aggregatePrices([obs('a', '100'), obs('b', '100'), obs('c', '105.000000000000000000001')], POLICY).get('BTC');
    assert.deepEqual(past?.outliers, ['c']);
    assert.equal(past?.priceUsd.toString(), '100');
  });

  void it('refuses to price when two sources disagree by more than the bound', () => {
    // Neither can be told from the other: both are 10 % / 2 away from their mean.
    const result = aggregatePrices([obs('a', '100'), obs('b', '111')], POLICY);
    assert.equal(result.get('BTC'), undefined);
  });

  void it('leaves a symbol absent when all its observations are stale', () => {
    const result = aggregatePrices([obs('a', '67000', 60_001), obs('b', '67100', 120_000), obs('a', '3456', 0, 'ETH')], POLICY);
    assert.equal(result.get('BTC'), undefined);
    assert.equal(result.get('ETH')?.priceUsd.toString(), '3456');
  });

  void it('ignores stale observations when fresh ones exist', () => {
    const btc = aggregatePrices([obs('a', '67000', 1_000), obs('b', '50000', 90_000)], POLICY).get('BTC');
    assert.equal(btc?.priceUsd.toString(), '67000');
    assert.deepEqual(btc?.sources, ['a']);
  });

  void it('ignores observations dated beyond the bound in the future', () => {
    assert.equal(aggregatePrices([obs('a', '67000', -60_001)], POLICY).get('BTC'), undefined);
    assert.equal(aggregatePrices([obs('a', '67000', -1_000)], POLICY).get('BTC')?.priceUsd.toString(), '67000');
  });

  void it('counts each source once, using its newest fresh observation', () => {
    // Three old readings from 'a' must not outvote 'b' and 'c'.
    const btc = aggregatePrices(
      [obs('a', '90000', 3_000), obs('a', '90000', 2_000), obs('a', '67050', 1_000), obs('b', '67000'), obs('c', '67100')],
      POLICY,
    ).get('BTC');
    assert.equal(btc?.priceUsd.toString(), '67050');
    assert.deepEqual(btc?.sources, ['a', 'b', 'c']);
  });

  void it('never lets a zero, negative, non-finite or invalid-date observation through', () => {
    const bad: PriceObservation[] = [
      obs('z', '0'),
      obs('n', '-67000'),
      { ...obs('i', '1'), priceUsd: new Decimal(Infinity) },
      { ...obs('q', '1'), priceUsd: new Decimal(NaN) },
      { ...obs('t', '67000'), observedAt: new Date(Number.NaN) },
    ];
    assert.equal(aggregatePrices(bad, POLICY).size, 0);
    assert.equal(aggregatePrices([...bad, obs('ok', '67000')], POLICY).get('BTC')?.priceUsd.toString(), '67000');
  });

  void it('gives an empty result for no observations', () => {
    assert.equal(aggregatePrices([], POLICY).size, 0);
  });

  void it('rejects a nonsensical policy', () => {
    assert.throws(() => aggregatePrices([], { ...POLICY, maxAgeMs: -1 }), RangeError);
    assert.throws(() => aggregatePrices([], { ...POLICY, maxDeviationPct: Number.NaN }), RangeError);
    assert.throws(() => aggregatePrices([], { ...POLICY, now: new Date(Number.NaN) }), RangeError);
  });

  void it('always returns a price within the bound of the fresh median, or none (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 1_000_000 }), { minLength: 1, maxLength: 7 }), (prices) => {
        const observations = prices.map((p, i) => obs(`s${i}`, String(p)));
        const btc = aggregatePrices(observations, POLICY).get('BTC');
        if (btc === undefined) return prices.length % 2 === 0; // only an even split can leave nothing
        const first = median(observations.map((o) => o.priceUsd));
        return btc.priceUsd.gt(0) && btc.priceUsd.minus(first).abs().lte(first.times('0.05'));
      }),
    );
  });
});
