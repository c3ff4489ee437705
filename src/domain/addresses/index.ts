import type { AddressFormat } from '../address-format.js';
import { invalid, type AddressCheck } from './address-check.js';
import { validateBitcoinAddress } from './bitcoin.js';
import { validateDogecoinAddress } from './dogecoin.js';
import { validateEvmAddress } from './evm.js';
import { validateLitecoinAddress } from './litecoin.js';
import { validateSolanaAddress } from './solana.js';
import { validateStellarAddress } from './stellar.js';
import { validateTonAddress } from './ton.js';
import { validateTronAddress } from './tron.js';
import { validateXrpAddress } from './xrp.js';

export type { AddressCheck } from './address-check.js';
export { validateMemo } from './memo.js';

const VALIDATORS: Record<AddressFormat, (address: string) => AddressCheck> = {
  bitcoin: validateBitcoinAddress,
  litecoin: validateLitecoinAddress,
  dogecoin: validateDogecoinAddress,
  evm: validateEvmAddress,
  tron: validateTronAddress,
  solana: validateSolanaAddress,
  xrp: validateXrpAddress,
  stellar: validateStellarAddress,
  ton: validateTonAddress,
};

/**
 * Is `address` a valid mainnet recipient/refund address for `format`? Never throws: the input
 * comes straight from partners. Each validator is written not to throw; the catch is a last
 * line of defence so a surprise inside a third-party decoder becomes a rejection, not a 500.
 */
export function validateAddress(format: AddressFormat, address: string): AddressCheck {
  // `format` is typed, but a bad database row or JS caller could still hand us anything.
  if (!Object.hasOwn(VALIDATORS, format)) return invalid('unknown address format');
  try {
    return VALIDATORS[format](address);
  } catch {
    return invalid('not a valid address');
  }
}
