import { Counter, Gauge } from 'prom-client';
import type { Clock } from '../clock.js';
import type { PricingConfig } from '../config.js';
import type { Db } from '../db/schema/index.js';
import type { Metrics } from '../metrics.js';
import { BinancePriceSource } from './binance-price-source.js';
import { CoinbasePriceSource } from './coinbase-price-source.js';
import { PriceBook, type PriceBookLogger } from './price-book.js';
import type { PriceSource } from './price-source.js';
import { StaticPriceSource } from './static-price-source.js';

export interface PriceBookDeps {
  config: PricingConfig;
  db: Db;
  clock: Clock;
  /** Price symbols the catalog uses. */
  symbols: readonly string[];
  logger: PriceBookLogger;
  metrics: Metrics;
}

/** The configured sources (PRICE_SOURCES) behind one PriceBook, with a failure counter per source. */
export function createPriceBook(deps: PriceBookDeps): PriceBook {
  const failures = new Counter({
    name: 'price_source_failures_total',
    help: 'Failed polls of a price source, by source.',
    labelNames: ['source'],
    registers: [deps.metrics.registry],
  });
  const sources: PriceSource[] = deps.config.sources.map((name) => {
    switch (name) {
      case 'static':
        return new StaticPriceSource(deps.db, deps.clock);
      case 'binance':
        return new BinancePriceSource();
      case 'coinbase':
        return new CoinbasePriceSource();
    }
  });
  const book = new PriceBook({
    sources,
    symbols: deps.symbols,
    pollIntervalMs: deps.config.pollIntervalMs,
    maxAgeMs: deps.config.maxAgeMs,
    maxDeviationPct: deps.config.maxDeviationPct,
    now: () => deps.clock.now(),
    logger: deps.logger,
    onSourceError: (source) => failures.inc({ source }),
  });
  // A symbol no source has answered for yet counts from the book's creation: a feed that never
  // came up shows as an age that grows, not as a missing series nobody alerts on.
  const createdAt = deps.clock.now();
  new Gauge({
    name: 'price_feed_age_seconds',
    help: 'Seconds since the newest observation of each price symbol, by any source (quotes stop when it passes PRICE_MAX_AGE_SECONDS).',
    labelNames: ['symbol'],
    registers: [deps.metrics.registry],
    // Every process polls the feeds itself: across a cluster the stalest one.
    aggregator: 'max',
    collect() {
      this.reset();
      const now = deps.clock.now().getTime();
      for (const symbol of book.askedSymbols()) {
        const observed = book.newestObservationAt(symbol) ?? createdAt;
        this.set({ symbol }, Math.max(0, (now - observed.getTime()) / 1000));
      }
    },
  });
  return book;
}
