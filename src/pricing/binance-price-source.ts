import { Decimal } from '../domain/money.js';
import { ratioToSignificantDigits } from '../domain/pricing/exact-decimal.js';
import { fetchFeedJson } from './fetch-feed-json.js';
import { PriceFeedError } from './price-feed-error.js';
import type { PriceObservation, PriceSource } from './price-source.js';
import { isPlausiblePriceUsd, positiveDecimalFromFeed } from './price-value.js';

/** Binance's public spot REST API; no key needed for market data. */
export const BINANCE_DEFAULT_BASE_URL = 'https://api.binance.com';
/** Per-request budget, milliseconds. */
export const BINANCE_DEFAULT_TIMEOUT_MS = 5_000;

/**
 * The Binance spot pair, quoted in USDT, for each price symbol. USDT and USDC are absent on
 * purpose: see USD_REFERENCE_PAIR.
 */
const USDT_QUOTED_PAIRS: Readonly<Record<string, string>> = {
  BTC: 'BTCUSDT',
  ETH: 'ETHUSDT',
  LTC: 'LTCUSDT',
  DOGE: 'DOGEUSDT',
  TRX: 'TRXUSDT',
  BNB: 'BNBUSDT',
  SOL: 'SOLUSDT',
  XRP: 'XRPUSDT',
  XLM: 'XLMUSDT',
  TON: 'TONUSDT',
};

/**
 * Binance lists no USD pairs, only stablecoin ones. Rather than assume USDT = 1 USD (which would make
 * every Binance price wrong by the full amount of any USDT depeg, and leave USDT itself unobservable),
 * this source takes USDC as its USD reference: USDC is fully reserve-backed and redeemable at par by
 * its issuer, and USDC/USDT is one of Binance's deepest books. So:
 *   USDT in USD = 1 / USDCUSDT
 *   X in USD    = XUSDT / USDCUSDT
 * USDC itself is NOT reported by this source: it is the reference, so its price here would be 1 by
 * construction and carry no information. The remaining assumption (USDC ≈ USD) is checked against
 * the other sources by the aggregator, which prices USDC from them alone.
 */
const USD_REFERENCE_PAIR = 'USDCUSDT';

export interface BinancePriceSourceOptions {
  /** Default BINANCE_DEFAULT_BASE_URL; tests point it at a local fake. No trailing slash needed. */
  baseUrl?: string;
  /** Per-request timeout, milliseconds. Default BINANCE_DEFAULT_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Source name in observations, logs and metrics. Default 'binance'. */
  name?: string;
  /** Clock for observedAt. Default: the system clock. */
  now?: () => Date;
  /** Body size cap, bytes. Default DEFAULT_MAX_FEED_BODY_BYTES. */
  maxBodyBytes?: number;
}

/**
 * Binance `GET /api/v3/ticker/price?symbols=[...]`, which answers
 * `[{"symbol":"BTCUSDT","price":"67012.34000000"}, ...]`.
 * Note Binance rejects the whole request (HTTP 400, code -1121) if any listed pair does not exist,
 * so a delisting shows up as this source failing, counted and logged, not as silent missing prices.
 */
export class BinancePriceSource implements PriceSource {
  readonly name: string;
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly now: () => Date;
  private readonly maxBodyBytes: number | undefined;

  constructor(options: BinancePriceSourceOptions = {}) {
    this.name = options.name ?? 'binance';
    this.baseUrl = (options.baseUrl ?? BINANCE_DEFAULT_BASE_URL).replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? BINANCE_DEFAULT_TIMEOUT_MS;
    this.now = options.now ?? (() => new Date());
    this.maxBodyBytes = options.maxBodyBytes;
  }

  async fetchPrices(symbols: readonly string[], signal: AbortSignal): Promise<PriceObservation[]> {
    const wanted = [...new Set(symbols)].filter((s) => s === 'USDT' || Object.hasOwn(USDT_QUOTED_PAIRS, s));
    if (wanted.length === 0) return [];
    const quotedPairs = wanted.flatMap((s) => (s === 'USDT' ? [] : [USDT_QUOTED_PAIRS[s] ?? s]));
    const pairs = [USD_REFERENCE_PAIR, ...quotedPairs];
    const url = `${this.baseUrl}/api/v3/ticker/price?symbols=${encodeURIComponent(JSON.stringify(pairs))}`;

    const body = await fetchFeedJson({
      source: this.name,
      url,
      timeoutMs: this.timeoutMs,
      signal,
      maxBodyBytes: this.maxBodyBytes,
    });
    const observedAt = this.now();
    if (!Array.isArray(body)) {
      throw new PriceFeedError(this.name, 'malformed', 'expected a JSON array of {symbol, price}');
    }

    const pairPrices = new Map<string, Decimal>();
    for (const entry of body as unknown[]) {
      if (typeof entry !== 'object' || entry === null) continue;
      const { symbol, price } = entry as { symbol?: unknown; price?: unknown };
      if (typeof symbol !== 'string' || pairPrices.has(symbol)) continue;
      const parsed = positiveDecimalFromFeed(price);
      if (parsed !== undefined) pairPrices.set(symbol, parsed);
    }

    const usdcInUsdt = pairPrices.get(USD_REFERENCE_PAIR);
    if (usdcInUsdt === undefined) {
      // Without the reference nothing can be converted to USD; fail loudly rather than guess.
      throw new PriceFeedError(this.name, 'malformed', `${USD_REFERENCE_PAIR} missing or invalid`);
    }

    const observations: PriceObservation[] = [];
    for (const symbol of wanted) {
      const usdtPrice = symbol === 'USDT' ? new Decimal(1) : pairPrices.get(USDT_QUOTED_PAIRS[symbol] ?? '');
      if (usdtPrice === undefined) continue;
      const priceUsd = ratioToSignificantDigits(usdtPrice, usdcInUsdt);
      if (!isPlausiblePriceUsd(priceUsd)) continue;
      observations.push({ symbol, priceUsd, observedAt, source: this.name });
    }
    return observations;
  }
}
