import type { Decimal } from '../money.js';

/**
 * What the engine needs to know about one currency (a coin on one network) to price it.
 * All amounts are in this currency's own units (e.g. BTC, not satoshi).
 */
export interface CurrencyTerms {
  /** Ticker, e.g. `btc`. Informational: the engine does not interpret it. */
  coin: string;
  /** Network code, e.g. `bitcoin`. Informational. */
  network: string;
  /** Decimal places this currency's amounts may carry (8 for BTC, 18 for ETH). Integer ≥ 0. */
  decimals: number;
  /** Smallest amount accepted when this currency is sent to us, and smallest payout when it is the destination. ≥ 0. */
  minAmount: Decimal;
  /** Largest amount accepted/paid out, same two roles as minAmount. Finite, ≥ 0. */
  maxAmount: Decimal;
  /** Network fee we deduct from the payout when this currency is the destination; absolute, in this coin's units. ≥ 0. */
  payoutFee: Decimal;
}

/** Operator-wide fee settings. Basis points: 1 bps = 0.01 %. */
export interface PricingSettings {
  /** Operator spread charged on every exchange, in bps (integer ≥ 0). */
  spreadBps: number;
  /** Extra charge for locking the rate, in bps (integer ≥ 0); applied only when rateType is `fixed`. */
  fixedPremiumBps: number;
}

/** `float`: the payout follows the market until the deposit confirms; `fixed`: the quoted rate is locked. */
export type RateType = 'float' | 'fixed';

/** Everything that determines the price of exchanging `from` into `to`. */
export interface PairPricing {
  /** The currency the user sends. */
  from: CurrencyTerms;
  /** The currency the user receives. */
  to: CurrencyTerms;
  /** USD price of one unit of `from`. Must be finite and > 0 for the pair to be offered. */
  priceFromUsd: Decimal;
  /** USD price of one unit of `to`. Must be finite and > 0 for the pair to be offered. */
  priceToUsd: Decimal;
  rateType: RateType;
  /** The partner's own markup in bps (integer ≥ 0), charged on top of the operator's fees. */
  markupBps: number;
  settings: PricingSettings;
}
