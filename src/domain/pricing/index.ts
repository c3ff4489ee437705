// The pricing engine: pure functions from prices, fees and currency limits to quotes.
export type { CurrencyTerms, PairPricing, RateType } from './pair-pricing.js';
export {
  assertFiniteAmount,
  BPS_PER_UNIT,
  offerPair,
  pairLimits,
  quoteAmount,
  quoteAmountTo,
  quoteOffered,
  quoteOfferedTo,
  reverseAmountFrom,
  totalFeeBps,
  type AmountOutOfRange,
  type OfferedPair,
  type OfferedPairResult,
  type PairUnavailable,
  type PriceMissing,
  type Quote,
  type QuoteResult,
  type TooManyDecimals,
} from './quote-math.js';
export { fixedRatePayout } from './fixed-rate-payout.js';
