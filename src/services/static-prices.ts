import { listStaticPrices, upsertStaticPrice, type StaticPrice } from '../db/repositories/static-prices-repository.js';
import type { Db } from '../db/schema/index.js';
import type { Clock } from '../clock.js';
import type { PriceBook } from '../pricing/price-book.js';

/**
 * The operator's own price table, the `static` price source (PRICE_SOURCES). A price set here is
 * used by this process at once (its price book polls again); other processes take it at their
 * next poll (PRICE_POLL_SECONDS).
 */
export class StaticPrices {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly prices: Pick<PriceBook, 'refresh'>,
  ) {}

  list(): Promise<StaticPrice[]> {
    return listStaticPrices(this.db);
  }

  /** Sets a price symbol's USD price (a positive decimal, already checked), upper-cased. */
  async set(symbol: string, priceUsd: string): Promise<StaticPrice> {
    const row = await upsertStaticPrice(this.db, symbol.toUpperCase(), priceUsd, this.clock.now());
    await this.prices.refresh();
    return row;
  }
}
