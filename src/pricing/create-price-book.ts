import { Counter } from 'prom-client';
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
  return new PriceBook({
    sources,
    symbols: deps.symbols,
    pollIntervalMs: deps.config.pollIntervalMs,
    maxAgeMs: deps.config.maxAgeMs,
    maxDeviationPct: deps.config.maxDeviationPct,
    now: () => deps.clock.now(),
    logger: deps.logger,
    onSourceError: (source) => failures.inc({ source }),
  });
}
