import { Decimal } from '../domain/money.js';
import type { PriceObservation } from './price-source.js';
import { isUsableObservation } from './price-value.js';

/** How observations are combined. */
export interface AggregationPolicy {
  /** The instant to judge freshness against. */
  now: Date;
  /**
   * Staleness bound, milliseconds: an observation counts only if |now - observedAt| <= maxAgeMs.
   * Future-dated ones beyond the bound are excluded too, so a skewed clock cannot keep a price alive.
   */
  maxAgeMs: number;
  /**
   * Outlier bound, percent of the first median (e.g. 5 for 5 %). A source further than this from
   * the median of all fresh sources is left out of the final median.
   */
  maxDeviationPct: number;
}

/** The consensus USD price of one symbol and how it was reached. */
export interface AggregatedPrice {
  symbol: string;
  /** Median of the fresh, non-outlier observations. USD per unit. */
  priceUsd: Decimal;
  /** Sources whose observation went into priceUsd, sorted. */
  sources: string[];
  /** Fresh sources dropped as outliers, sorted. */
  outliers: string[];
  /**
   * The last instant priceUsd is made of fresh observations only: the oldest observation in it
   * plus maxAgeMs. After it that observation no longer counts, so the price may change (a float
   * quote's expires_at, docs/contract.md §10.6). A newer poll may change it earlier.
   */
  freshUntil: Date;
}

/**
 * Per symbol: take each source's newest fresh observation (so one source can never outvote others
 * by repeating itself), take the median, drop sources deviating more than maxDeviationPct from it,
 * and take the median of the rest. A symbol with no fresh observation, or whose sources all
 * disagree with each other (e.g. two sources far apart), is absent from the result: the caller
 * must refuse to quote it rather than guess. Pure: no clock, no I/O.
 */
export function aggregatePrices(
  observations: readonly PriceObservation[],
  policy: AggregationPolicy,
): Map<string, AggregatedPrice> {
  const { now, maxAgeMs, maxDeviationPct } = policy;
  if (!Number.isFinite(now.getTime())) throw new RangeError('now must be a valid Date');
  if (!(maxAgeMs >= 0)) throw new RangeError('maxAgeMs must be >= 0');
  if (!(maxDeviationPct >= 0) || !Number.isFinite(maxDeviationPct)) {
    throw new RangeError('maxDeviationPct must be a finite number >= 0');
  }

  // symbol -> source -> newest fresh observation
  const latest = new Map<string, Map<string, PriceObservation>>();
  for (const observation of observations) {
    if (!isUsableObservation(observation)) continue;
    if (Math.abs(now.getTime() - observation.observedAt.getTime()) > maxAgeMs) continue;
    let bySource = latest.get(observation.symbol);
    if (bySource === undefined) {
      bySource = new Map();
      latest.set(observation.symbol, bySource);
    }
    const previous = bySource.get(observation.source);
    if (previous === undefined || observation.observedAt > previous.observedAt) {
      bySource.set(observation.source, observation);
    }
  }

  // Exact arithmetic so a price right at the bound is judged on its digits, not on rounding.
  const tolerance = new Decimal(String(maxDeviationPct)).div(100);
  const result = new Map<string, AggregatedPrice>();
  for (const [symbol, bySource] of latest) {
    const fresh = [...bySource.values()];
    const firstMedian = median(fresh.map((o) => o.priceUsd));
    const limit = firstMedian.times(tolerance);
    const kept = fresh.filter((o) => o.priceUsd.minus(firstMedian).abs().lte(limit));
    if (kept.length === 0) continue;
    result.set(symbol, {
      symbol,
      priceUsd: median(kept.map((o) => o.priceUsd)),
      sources: kept.map((o) => o.source).sort(),
      outliers: fresh.filter((o) => !kept.includes(o)).map((o) => o.source).sort(),
      freshUntil: new Date(Math.min(...kept.map((o) => o.observedAt.getTime())) + maxAgeMs),
    });
  }
  return result;
}

/**
 * Median of a non-empty list; for an even count, the mean of the two middle values, computed
 * exactly.
 */
export function median(values: readonly Decimal[]): Decimal {
  if (values.length === 0) throw new RangeError('median of an empty list');
  const sorted = [...values].sort((a, b) => a.comparedTo(b));
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] as Decimal;
  if (sorted.length % 2 === 1) return upper;
  const lower = sorted[middle - 1] as Decimal;
  return lower.plus(upper).div(2);
}
