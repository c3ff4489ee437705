import type { Clock } from '../clock.js';
import { listStaticPrices, upsertStaticPrice, type StaticPrice } from '../db/repositories/static-prices-repository.js';
import type { Db } from '../db/schema/index.js';
import { isStorableDecimal, type Decimal } from '../domain/money.js';
import { ApiError } from '../errors.js';
import type { PriceBook } from '../pricing/price-book.js';

/** The operator's static prices (the console's prices page): the price book's last source. */
export class StaticPrices {
  constructor(
    private readonly db: Db,
    private readonly prices: Pick<PriceBook, 'refresh'>,
    private readonly clock: Clock,
  ) {}

  list(): Promise<StaticPrice[]> {
    return listStaticPrices(this.db);
  }

  /** Sets the symbol's static price (this process uses it at once, the others at their next poll). */
  async set(symbol: string, price: Decimal): Promise<StaticPrice> {
    if (price.lte(0) || price.decimalPlaces() > 18 || !isStorableDecimal(price)) {
      throw new ApiError('bad_request', 'The price is a positive decimal below 1e20 with at most 18 decimals.');
    }
    const row = await upsertStaticPrice(this.db, symbol.toUpperCase(), price.toFixed(), this.clock.now());
    await this.prices.refresh();
    return row;
  }
}
