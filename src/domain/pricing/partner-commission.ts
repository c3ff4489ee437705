import type { Decimal } from '../money.js';
import { BPS_PER_UNIT } from './quote-math.js';
import { floorRatio } from './exact-decimal.js';

/** USD amounts (commission, volume) are kept to this many places, rounded down. */
export const USD_PLACES = 8;

/** What the exchange moment knows: the amount exchanged, that moment's prices and the partner's markup. */
export interface CommissionInput {
  /** amount_from_received, in coin_from. */
  received: Decimal;
  /** USD price of one coin_from and one coin_to at the exchange moment. */
  priceFromUsd: Decimal;
  priceToUsd: Decimal;
  /** The partner's markup in force at the exchange moment, bps. */
  markupBps: number;
  /** Decimal places of coin_to. */
  toDecimals: number;
}

/** The partner's share (docs/contract.md §7.8): in coin_to and in USD, and the exchange's volume in USD. */
export interface PartnerCommission {
  /** received × priceFrom / priceTo × markup / 10 000, rounded DOWN to coin_to's decimals. */
  amount: Decimal;
  /** amount × priceTo, rounded DOWN to USD_PLACES. */
  usd: Decimal;
  /** received × priceFrom, rounded DOWN to USD_PLACES. */
  volumeUsd: Decimal;
}

/**
 * The partner's markup share of one exchange: the markup is charged on the gross conversion
 * (quote-math: net = gross × (1 − total bps / 10 000) − payout fee), so its share is the gross
 * amount in coin_to times markup / 10 000. Exact decimal arithmetic, each figure rounded down
 * once, so what is recorded is never more than what was charged, and sums of recorded figures
 * are exact.
 */
export function partnerCommission(input: CommissionInput): PartnerCommission {
  const amount = floorRatio(input.received.times(input.priceFromUsd).times(input.markupBps), input.priceToUsd.times(BPS_PER_UNIT), input.toDecimals);
  return {
    amount,
    usd: amount.times(input.priceToUsd).toDecimalPlaces(USD_PLACES, 1),
    volumeUsd: input.received.times(input.priceFromUsd).toDecimalPlaces(USD_PLACES, 1),
  };
}
