import { Decimal } from '../domain/money.js';
import type { Clock } from '../clock.js';
import { listStaticPrices } from '../db/repositories/static-prices-repository.js';
import type { Db } from '../db/schema/index.js';
import type { PriceObservation, PriceSource } from './price-source.js';

/**
 * The operator's own price table. An operator-set price is authoritative until changed, so it
 * is observed "now" at every poll rather than aged by when it was set: the staleness bound
 * exists for feeds that can silently stop, which a table cannot.
 */
export class StaticPriceSource implements PriceSource {
  readonly name = 'static';

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async fetchPrices(symbols: readonly string[]): Promise<PriceObservation[]> {
    const wanted = new Set(symbols);
    const observedAt = this.clock.now();
    return (await listStaticPrices(this.db))
      .filter((row) => wanted.has(row.symbol))
      .map((row) => ({ symbol: row.symbol, priceUsd: new Decimal(row.price_usd), observedAt, source: this.name }));
  }
}
