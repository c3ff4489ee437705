import type { Decimal } from '../domain/money.js';
import { aggregatePrices } from './price-aggregator.js';
import type { AggregatedPrice } from './price-aggregator.js';
import { PriceFeedError } from './price-feed-error.js';
import type { PriceObservation, PriceSource } from './price-source.js';
import { isUsableObservation } from './price-value.js';

/** The one logger method the book needs; a pino logger fits as is. */
export interface PriceBookLogger {
  warn(obj: object, msg: string): void;
}

export interface PriceBookOptions {
  /** Sources polled on every refresh; names must be unique. More can be added with addSource. */
  sources: readonly PriceSource[];
  /** Price symbols asked of every source, e.g. PRICE_SYMBOLS. */
  symbols: readonly string[];
  /** Pause between the end of one poll and the start of the next, milliseconds. Default 15 000. */
  pollIntervalMs?: number;
  /**
   * Upper bound on one source's fetchPrices, milliseconds. Default 10 000. Enforced here as well as
   * by the adapters' own timeouts, so a source that ignores its AbortSignal cannot stall a poll.
   */
  sourceTimeoutMs?: number;
  /** Observations older than this are not used, milliseconds. Default 60 000 (four missed polls). */
  maxAgeMs?: number;
  /** Outlier bound, percent of the median. Default 5. */
  maxDeviationPct?: number;
  /** Clock. Default: the system clock. */
  now?: () => Date;
  /** Receives one warning per failed fetch and per source returning unusable observations. */
  logger?: PriceBookLogger;
  /** Called once per failed fetch, e.g. to increment a per-source error counter. */
  onSourceError?: (sourceName: string, error: unknown) => void;
}

export const PRICE_BOOK_DEFAULTS = {
  pollIntervalMs: 15_000,
  sourceTimeoutMs: 10_000,
  maxAgeMs: 60_000,
  maxDeviationPct: 5,
} as const;

const silentLogger: PriceBookLogger = { warn: () => undefined };

/**
 * One symbol's aggregate as last computed, and how long it provably stays the same: until an
 * observation is written (observationsVersion moves) or the clock leaves [fromMs, untilMs), the
 * interval around the computing instant in which no observation of the symbol turns fresh or stale.
 */
interface CachedAggregate {
  value: AggregatedPrice | undefined;
  observationsVersion: number;
  /** Epoch ms, inclusive; -Infinity when no boundary lies below. */
  fromMs: number;
  /** Epoch ms, exclusive; Infinity when no boundary lies above. */
  untilMs: number;
}

/**
 * Polls price sources and answers "what is the USD price of X right now". Keeps the latest
 * observation per source and symbol; a failed poll keeps the previous ones, which then age out
 * through maxAgeMs, so a dead feed stops influencing quotes within that bound and never earlier.
 */
export class PriceBook {
  private readonly sources: PriceSource[] = [];
  /** Replaced whole (useSymbols), never mutated: a poll in flight keeps the list it started with. */
  private symbols: readonly string[];
  private readonly pollIntervalMs: number;
  private readonly sourceTimeoutMs: number;
  private readonly maxAgeMs: number;
  private readonly maxDeviationPct: number;
  private readonly now: () => Date;
  private readonly logger: PriceBookLogger;
  private readonly onSourceError: (sourceName: string, error: unknown) => void;

  /** source name -> symbol -> latest observation */
  private readonly latest = new Map<string, Map<string, PriceObservation>>();
  /** Bumped whenever `latest` gains or changes an observation; invalidates every cached aggregate. */
  private observationsVersion = 0;
  /** symbol -> aggregate, for the symbols asked of the sources (the only ones with observations). */
  private readonly aggregates = new Map<string, CachedAggregate>();
  private inFlight: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Bumped by start/stop so a loop from an earlier start never reschedules itself. */
  private generation = 0;
  private running = false;
  /** Aborted by stop() to cancel fetches in flight; replaced so later refreshes still work. */
  private lifecycle = new AbortController();

  constructor(options: PriceBookOptions) {
    this.symbols = [...options.symbols];
    this.pollIntervalMs = options.pollIntervalMs ?? PRICE_BOOK_DEFAULTS.pollIntervalMs;
    this.sourceTimeoutMs = options.sourceTimeoutMs ?? PRICE_BOOK_DEFAULTS.sourceTimeoutMs;
    this.maxAgeMs = options.maxAgeMs ?? PRICE_BOOK_DEFAULTS.maxAgeMs;
    this.maxDeviationPct = options.maxDeviationPct ?? PRICE_BOOK_DEFAULTS.maxDeviationPct;
    this.now = options.now ?? (() => new Date());
    this.logger = options.logger ?? silentLogger;
    this.onSourceError = options.onSourceError ?? (() => undefined);
    for (const source of options.sources) this.addSource(source);
  }

  /**
   * The symbols to ask the sources for from the next poll on (a currency added to the catalog at
   * run time, docs/contract.md §12); a symbol no longer asked for ages out with its observations.
   */
  useSymbols(symbols: readonly string[]): void {
    const next = [...new Set(symbols)];
    if (next.length === this.symbols.length && next.every((symbol) => this.symbols.includes(symbol))) return;
    this.symbols = next;
  }

  /** The symbols asked of the sources now. */
  askedSymbols(): readonly string[] {
    return this.symbols;
  }

  /**
   * When the newest observation of `symbol` was made, by whichever source (fresh or not, outlier
   * or not), or undefined when none ever was: what `price_feed_age_seconds` reports.
   */
  newestObservationAt(symbol: string): Date | undefined {
    let newest: Date | undefined;
    for (const bySymbol of this.latest.values()) {
      const observed = bySymbol.get(symbol)?.observedAt;
      if (observed !== undefined && (newest === undefined || observed > newest)) newest = observed;
    }
    return newest;
  }

  /** Adds a source (e.g. the operator's static table); it is polled from the next refresh on. */
  addSource(source: PriceSource): void {
    if (this.sources.some((s) => s.name === source.name)) {
      throw new Error(`duplicate price source name: ${source.name}`);
    }
    this.sources.push(source);
  }

  /**
   * Consensus USD price, or undefined when no fresh, agreeing observation exists: do not quote.
   * The same Decimal instance is returned for as long as the price provably cannot have changed
   * (no poll wrote an observation, no observation turned fresh or stale), so callers may memoise
   * on its identity.
   */
  getPriceUsd(symbol: string): Decimal | undefined {
    return this.getAggregatedPrice(symbol)?.priceUsd;
  }

  /** When the price getPriceUsd gives now stops being fresh (AggregatedPrice.freshUntil), or undefined without one. */
  getPriceFreshUntil(symbol: string): Date | undefined {
    return this.getAggregatedPrice(symbol)?.freshUntil;
  }

  /**
   * Like getPriceUsd, with which sources were used and which were dropped as outliers. The result
   * is shared while cached, hence frozen.
   */
  getAggregatedPrice(symbol: string): AggregatedPrice | undefined {
    const now = this.now();
    const nowMs = now.getTime();
    const cached = this.aggregates.get(symbol);
    if (
      cached !== undefined &&
      cached.observationsVersion === this.observationsVersion &&
      nowMs >= cached.fromMs &&
      nowMs < cached.untilMs
    ) {
      return cached.value;
    }
    const observations: PriceObservation[] = [];
    for (const bySymbol of this.latest.values()) {
      const observation = bySymbol.get(symbol);
      if (observation !== undefined) observations.push(observation);
    }
    const value = aggregatePrices(observations, {
      now,
      maxAgeMs: this.maxAgeMs,
      maxDeviationPct: this.maxDeviationPct,
    }).get(symbol);
    if (value !== undefined) {
      Object.freeze(value.sources);
      Object.freeze(value.outliers);
      Object.freeze(value);
    }
    // Only symbols the sources are asked for can have observations; others are not worth a slot.
    if (this.symbols.includes(symbol)) {
      this.aggregates.set(symbol, {
        value,
        observationsVersion: this.observationsVersion,
        ...this.freshnessInterval(observations, nowMs),
      });
    }
    return value;
  }

  /**
   * Polls every source once, concurrently. Never rejects: failures are logged and reported to
   * onSourceError. A call while a refresh is running joins that refresh instead of starting another.
   */
  refresh(): Promise<void> {
    this.inFlight ??= this.pollAll().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  /** Refreshes now and then every pollIntervalMs after each refresh ends. Idempotent. */
  start(): void {
    if (this.running) return;
    this.running = true;
    const generation = ++this.generation;
    const loop = (): void => {
      void this.refresh().then(() => {
        if (!this.running || generation !== this.generation) return;
        this.timer = setTimeout(loop, this.pollIntervalMs);
        // Polling alone must not keep the process alive.
        this.timer.unref();
      });
    };
    // After a quick stop/start, let the cancelled poll settle so the first poll is a real one.
    void (this.inFlight ?? Promise.resolve()).then(() => {
      if (this.running && generation === this.generation) loop();
    });
  }

  /** Stops polling and aborts fetches in flight. Prices already held stay (and age out). */
  stop(): void {
    this.running = false;
    this.generation++;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.lifecycle.abort();
    this.lifecycle = new AbortController();
  }

  private async pollAll(): Promise<void> {
    const stopSignal = this.lifecycle.signal;
    // allSettled: even a throwing logger must not turn into a rejected refresh (and, from the
    // timer loop, an unhandled rejection that would take the process down).
    await Promise.allSettled([...this.sources].map((source) => this.pollOne(source, stopSignal)));
  }

  private async pollOne(source: PriceSource, stopSignal: AbortSignal): Promise<void> {
    let observations: PriceObservation[];
    try {
      observations = await this.fetchWithDeadline(source, stopSignal);
      if (!Array.isArray(observations)) {
        throw new PriceFeedError(source.name, 'malformed', 'fetchPrices did not resolve to an array');
      }
    } catch (error) {
      // Cancelled by stop(): not the source's fault, so not counted.
      if (stopSignal.aborted) return;
      this.logger.warn({ source: source.name, err: error }, 'price source fetch failed');
      try {
        this.onSourceError(source.name, error);
      } catch (callbackError) {
        this.logger.warn({ source: source.name, err: callbackError }, 'onSourceError callback threw');
      }
      return;
    }
    if (stopSignal.aborted) return;

    let bySymbol = this.latest.get(source.name);
    if (bySymbol === undefined) {
      bySymbol = new Map();
      this.latest.set(source.name, bySymbol);
    }
    let unusable = 0;
    for (const observation of observations as unknown[]) {
      // Sources written elsewhere (e.g. the static table) get the same checks as the HTTP adapters.
      if (!isUsableObservation(observation)) {
        unusable++;
        continue;
      }
      // Only what was asked for is kept, so a chatty source cannot grow the book without bound.
      if (!this.symbols.includes(observation.symbol)) continue;
      // Attributed to the source that returned it, so no source can fill another's slot. The date
      // is copied: the cached aggregates rely on it not changing behind the book's back.
      bySymbol.set(observation.symbol, {
        ...observation,
        observedAt: new Date(observation.observedAt.getTime()),
        source: source.name,
      });
      this.observationsVersion++;
    }
    if (unusable > 0) {
      this.logger.warn({ source: source.name, unusable }, 'price source returned unusable observations');
    }
  }

  /**
   * The interval around nowMs in which no observation changes freshness. aggregatePrices counts an
   * observation iff |now − observedAt| ≤ maxAgeMs; with integer milliseconds that holds exactly on
   * [observedAt − m, observedAt + m + 1) for m = floor(maxAgeMs), so those two instants are the
   * only ones at which the fresh set, and so the aggregate, can change.
   */
  private freshnessInterval(observations: readonly PriceObservation[], nowMs: number): { fromMs: number; untilMs: number } {
    const m = Math.floor(this.maxAgeMs);
    let fromMs = -Infinity;
    let untilMs = Infinity;
    for (const observation of observations) {
      const observedMs = observation.observedAt.getTime();
      for (const boundary of [observedMs - m, observedMs + m + 1]) {
        if (boundary <= nowMs) fromMs = Math.max(fromMs, boundary);
        else untilMs = Math.min(untilMs, boundary);
      }
    }
    return { fromMs, untilMs };
  }

  private fetchWithDeadline(source: PriceSource, stopSignal: AbortSignal): Promise<PriceObservation[]> {
    const controller = new AbortController();
    const timer = setTimeout(() => {
      const message = `fetchPrices gave no answer within ${this.sourceTimeoutMs} ms`;
      controller.abort(new PriceFeedError(source.name, 'timeout', message));
    }, this.sourceTimeoutMs);
    timer.unref();
    const onStop = (): void => {
      controller.abort(new PriceFeedError(source.name, 'aborted', 'price book stopped'));
    };
    stopSignal.addEventListener('abort', onStop, { once: true });
    const deadline = new Promise<never>((_, reject) => {
      const rejectWithReason = (): void => reject(controller.signal.reason as Error);
      controller.signal.addEventListener('abort', rejectWithReason, { once: true });
    });
    // Promise.resolve().then(...) also turns a synchronous throw from fetchPrices into a rejection.
    const fetched = Promise.resolve().then(() => source.fetchPrices(this.symbols, controller.signal));
    return Promise.race([fetched, deadline]).finally(() => {
      clearTimeout(timer);
      stopSignal.removeEventListener('abort', onStop);
    });
  }
}
