import type { Numeric, Timestamp } from './currencies.js';

/** One operator-set USD price per price symbol (the `static` price source). */
export interface StaticPriceTable {
  symbol: string;
  /** USD per one whole unit of the asset; > 0. */
  price_usd: Numeric;
  updated_at: Timestamp;
}
