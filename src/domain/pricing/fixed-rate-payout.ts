import { floorToPlaces, type Decimal } from '../money.js';

/**
 * What a fixed-rate order pays out for `received` (coin_from) at its locked exact rate (coin_to
 * per coin_from): the exact product, rounded DOWN to coin_to's `toDecimals`. Never rounded in the
 * user's or the operator's disfavour by anything but that one visible floor.
 */
export function fixedRatePayout(received: Decimal, exactRate: Decimal, toDecimals: number): Decimal {
  return floorToPlaces(received.times(exactRate), toDecimals);
}
