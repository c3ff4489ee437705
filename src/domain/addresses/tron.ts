import { invalid, screenInput, type AddressCheck } from './address-check.js';
import { checkVersionedBase58 } from './versioned-base58.js';

// 0x41 + 20 bytes always encodes to "T..." (34 characters). Tron's test networks (Shasta, Nile)
// use the same prefix, so a test-network address cannot be told apart and is not rejected here.
const VERSIONS = { mainnet: [0x41], testnet: [] } as const;
const HEX_FORM = /^(0x)?41[0-9a-fA-F]{40}$/;

/** Tron: base58check, 21 bytes starting with 0x41. */
export function validateTronAddress(address: string): AddressCheck {
  const screened = screenInput(address, 50);
  if (!screened.ok) return screened;
  // Explorers and APIs also print the hex form; payouts expect base58, so point at it.
  if (HEX_FORM.test(address)) return invalid('hex-form Tron address: use the base58 T... form');
  return checkVersionedBase58(address, VERSIONS);
}
