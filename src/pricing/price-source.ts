import type { Decimal } from '../domain/money.js';

/**
 * The price symbols the exchange quotes. A price symbol names an asset, not a network: USDT on
 * Tron and USDT on Ethereum share the one 'USDT' price. Each adapter maps these to the feed's own
 * identifiers; a symbol a feed does not list is simply not observed by that feed.
 */
export const PRICE_SYMBOLS = [
  'BTC',
  'ETH',
  'USDT',
  'USDC',
  'LTC',
  'DOGE',
  'TRX',
  'BNB',
  'SOL',
  'XRP',
  'XLM',
  'TON',
] as const;

/** One observed USD price of one price symbol (e.g. 'BTC', 'USDT'). */
export interface PriceObservation {
  /** Price symbol, e.g. 'BTC'. */
  symbol: string;
  /** USD per one whole unit of the asset. Always finite and > 0. */
  priceUsd: Decimal;
  /** When this process received the price (feeds in use here carry no timestamp of their own). */
  observedAt: Date;
  /** Name of the PriceSource that produced it, e.g. 'binance'. */
  source: string;
}

/**
 * Anything that can report USD prices: an HTTP market-data feed, or the operator's static table.
 *
 * Contract: resolves only with valid observations (missing, non-numeric, zero, negative, non-finite
 * or implausible values are left out, never returned), and rejects with a PriceFeedError when the
 * feed as a whole is unusable (HTTP error, timeout, malformed payload). Must honour `signal`.
 */
export interface PriceSource {
  /** Unique among the sources of one PriceBook; used in logs and error counters. */
  readonly name: string;
  fetchPrices(symbols: readonly string[], signal: AbortSignal): Promise<PriceObservation[]>;
}
