import { screenInput, type AddressCheck } from './address-check.js';
import { checkSegwitAddress, isSegwitCandidate } from './segwit.js';
import { checkVersionedBase58 } from './versioned-base58.js';

const SEGWIT = { hrp: 'bc', testnetHrps: ['tb', 'bcrt'] } as const;
// P2PKH 0x00 ("1..."), P2SH 0x05 ("3..."); testnet/regtest P2PKH 0x6f ("m"/"n"), P2SH 0xc4 ("2").
const VERSIONS = { mainnet: [0x00, 0x05], testnet: [0x6f, 0xc4] } as const;

/** Bitcoin mainnet: legacy P2PKH/P2SH or native SegWit (bc1, v0 bech32 / v1+ bech32m). */
export function validateBitcoinAddress(address: string): AddressCheck {
  const screened = screenInput(address, 90);
  if (!screened.ok) return screened;
  if (isSegwitCandidate(address, SEGWIT)) return checkSegwitAddress(address, SEGWIT);
  return checkVersionedBase58(address, VERSIONS);
}
