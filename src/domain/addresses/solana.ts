import { base58 } from '@scure/base';
import { invalid, screenInput, valid, type AddressCheck } from './address-check.js';

// 32 bytes encode to 32..44 base58 characters.
const MAX_LENGTH = 44;
const PUBKEY_BYTES = 32;

/**
 * Solana: base58 (Bitcoin alphabet, no checksum) of exactly 32 bytes.
 *
 * No ed25519 on-curve check: wallet addresses are curve points, but program-derived addresses
 * (e.g. associated token accounts, vaults) are deliberately off-curve and are legitimate
 * recipients, so both are accepted. The format has no checksum, so a typo that still decodes
 * to 32 bytes cannot be detected here.
 */
export function validateSolanaAddress(address: string): AddressCheck {
  const screened = screenInput(address, MAX_LENGTH);
  if (!screened.ok) return screened;
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(address);
  } catch {
    return invalid('not a valid base58 string');
  }
  return bytes.length === PUBKEY_BYTES ? valid() : invalid('wrong length');
}
