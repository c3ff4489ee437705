import { screenInput, type AddressCheck } from './address-check.js';
import { checkVersionedBase58 } from './versioned-base58.js';

// P2PKH 0x1e ("D"), P2SH 0x16 ("9"/"A"); testnet P2PKH 0x71 ("n"), P2SH 0xc4 ("2").
// Dogecoin has no SegWit addresses on mainnet.
const VERSIONS = { mainnet: [0x1e, 0x16], testnet: [0x71, 0xc4] } as const;

/** Dogecoin mainnet: base58check P2PKH or P2SH. */
export function validateDogecoinAddress(address: string): AddressCheck {
  const screened = screenInput(address, 40);
  if (!screened.ok) return screened;
  return checkVersionedBase58(address, VERSIONS);
}
