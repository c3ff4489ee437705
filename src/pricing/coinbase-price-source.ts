import { Decimal } from '../domain/money.js';
import { ratioToSignificantDigits } from '../domain/pricing/exact-decimal.js';
import { fetchFeedJson } from './fetch-feed-json.js';
import { PriceFeedError } from './price-feed-error.js';
import type { PriceObservation, PriceSource } from './price-source.js';
import { isPlausiblePriceUsd, positiveDecimalFromFeed } from './price-value.js';

/** Coinbase's public v2 API; exchange rates need no key. */
export const COINBASE_DEFAULT_BASE_URL = 'https://api.coinbase.com';
/** Per-request budget, milliseconds. */
export const COINBASE_DEFAULT_TIMEOUT_MS = 5_000;

/**
 * Coinbase currency code for each price symbol. Identical today, kept as an explicit map so a
 * rename on Coinbase's side is a one-line change and unknown symbols are never sent through.
 * Coinbase quotes USDT and USDC directly against USD, so both are real observations here.
 */
const COINBASE_CURRENCY_CODES: Readonly<Record<string, string>> = {
  BTC: 'BTC',
  ETH: 'ETH',
  USDT: 'USDT',
  USDC: 'USDC',
  LTC: 'LTC',
  DOGE: 'DOGE',
  TRX: 'TRX',
  BNB: 'BNB',
  SOL: 'SOL',
  XRP: 'XRP',
  XLM: 'XLM',
  TON: 'TON',
};

export interface CoinbasePriceSourceOptions {
  /** Default COINBASE_DEFAULT_BASE_URL; tests point it at a local fake. */
  baseUrl?: string;
  /** Per-request timeout, milliseconds. Default COINBASE_DEFAULT_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Source name in observations, logs and metrics. Default 'coinbase'. */
  name?: string;
  /** Clock for observedAt. Default: the system clock. */
  now?: () => Date;
  /** Body size cap, bytes. Default DEFAULT_MAX_FEED_BODY_BYTES. */
  maxBodyBytes?: number;
}

/**
 * Coinbase `GET /v2/exchange-rates?currency=USD`, which answers
 * `{"data":{"currency":"USD","rates":{"BTC":"0.0000149...","EUR":"0.92",...}}}`: how many units of
 * each currency one USD buys. The USD price of a unit is therefore 1 / rate (Decimal division,
 * 20 significant digits).
 */
export class CoinbasePriceSource implements PriceSource {
  readonly name: string;
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly now: () => Date;
  private readonly maxBodyBytes: number | undefined;

  constructor(options: CoinbasePriceSourceOptions = {}) {
    this.name = options.name ?? 'coinbase';
    this.baseUrl = (options.baseUrl ?? COINBASE_DEFAULT_BASE_URL).replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? COINBASE_DEFAULT_TIMEOUT_MS;
    this.now = options.now ?? (() => new Date());
    this.maxBodyBytes = options.maxBodyBytes;
  }

  async fetchPrices(symbols: readonly string[], signal: AbortSignal): Promise<PriceObservation[]> {
    const wanted = [...new Set(symbols)].filter((s) => Object.hasOwn(COINBASE_CURRENCY_CODES, s));
    if (wanted.length === 0) return [];

    const body = await fetchFeedJson({
      source: this.name,
      url: `${this.baseUrl}/v2/exchange-rates?currency=USD`,
      timeoutMs: this.timeoutMs,
      signal,
      maxBodyBytes: this.maxBodyBytes,
    });
    const observedAt = this.now();
    const rates = usdRates(body);
    if (rates === undefined) {
      throw new PriceFeedError(this.name, 'malformed', 'expected {"data":{"currency":"USD","rates":{...}}}');
    }

    const observations: PriceObservation[] = [];
    for (const symbol of wanted) {
      const code = COINBASE_CURRENCY_CODES[symbol] ?? symbol;
      const rate = Object.hasOwn(rates, code) ? positiveDecimalFromFeed(rates[code]) : undefined;
      if (rate === undefined) continue;
      // Coinbase gives units per USD: the price is its inverse, which rarely terminates.
      const priceUsd = ratioToSignificantDigits(new Decimal(1), rate);
      if (!isPlausiblePriceUsd(priceUsd)) continue;
      observations.push({ symbol, priceUsd, observedAt, source: this.name });
    }
    return observations;
  }
}

/** The rates object if the body has the exchange-rates shape with USD as base, else undefined. */
function usdRates(body: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(body) || !isPlainObject(body.data)) return undefined;
  const { currency, rates } = body.data;
  // A different base (e.g. a proxy that dropped the query string) would make every price wrong.
  if (currency !== 'USD' || !isPlainObject(rates)) return undefined;
  return rates;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
