/**
 * Native amounts (integer strings in the asset's smallest unit, as Edge passes them) and the
 * API's decimal amounts, converted exactly with bigint: never a float. `decimals` is the asset's
 * number of decimal places (8 for BTC, 6 for USDT on Ethereum).
 */

const PLAIN_DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** How a decimal with more places than the asset has becomes a native amount. */
export type Rounding = 'exact' | 'up' | 'down';

/** "150000000", 8 → "1.5". */
export function nativeToDecimal(native: string, decimals: number): string {
  if (!/^\d+$/.test(native)) throw new Error(`not a native amount: ${native}`);
  const digits = native.replace(/^0+(?=\d)/, '').padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return fraction === '' ? whole : `${whole}.${fraction}`;
}

/**
 * "1.5", 8 → "150000000". A decimal with more places than `decimals` is refused ('exact') or
 * rounded away from or towards zero ('up' for a minimum, 'down' for a maximum: the limit a wallet
 * shows must itself be within the limits).
 */
export function decimalToNative(decimal: string, decimals: number, rounding: Rounding = 'exact'): string {
  const match = PLAIN_DECIMAL.exec(decimal);
  if (match === null) throw new Error(`not a plain decimal amount: ${decimal}`);
  const whole = match[1] ?? '0';
  const fraction = match[2] ?? '';
  const kept = fraction.slice(0, decimals).padEnd(decimals, '0');
  const dropped = fraction.slice(decimals);
  let native = BigInt(whole + kept);
  if (/[1-9]/.test(dropped)) {
    if (rounding === 'exact') throw new Error(`${decimal} has more than ${decimals} decimals`);
    if (rounding === 'up') native += 1n;
  }
  return native.toString();
}

/** Sign of a − b for native amounts. */
export function compareNative(a: string, b: string): number {
  const diff = BigInt(a) - BigInt(b);
  return diff > 0n ? 1 : diff < 0n ? -1 : 0;
}

/** The number of decimals a denomination multiplier stands for ("100000000" → 8); it must be a power of ten. */
export function multiplierDecimals(multiplier: string): number {
  if (!/^10*$/.test(multiplier)) throw new Error(`denomination multiplier ${multiplier} is not a power of ten`);
  return multiplier.length - 1;
}
