import { invalid, screenInput, type AddressCheck } from './address-check.js';
import { checkSegwitAddress, isSegwitCandidate } from './segwit.js';
import { checkVersionedBase58 } from './versioned-base58.js';

const SEGWIT = { hrp: 'ltc', testnetHrps: ['tltc', 'rltc'] } as const;
// P2PKH 0x30 ("L"), P2SH 0x32 ("M") and the pre-2018 P2SH 0x05 ("3") that wallets still show;
// testnet P2PKH 0x6f, P2SH 0x3a ("Q") and the old 0xc4.
const VERSIONS = { mainnet: [0x30, 0x32, 0x05], testnet: [0x6f, 0x3a, 0xc4] } as const;

/** Litecoin mainnet: legacy L/M/3 or native SegWit (ltc1, v0 bech32 / v1+ bech32m). */
export function validateLitecoinAddress(address: string): AddressCheck {
  const screened = screenInput(address, 90);
  if (!screened.ok) return screened;
  // MWEB addresses need a MWEB-aware wallet to pay; say so rather than "not base58".
  if (/^(ltcmweb|tmweb)1/i.test(address)) return invalid('MWEB addresses are not supported');
  if (isSegwitCandidate(address, SEGWIT)) return checkSegwitAddress(address, SEGWIT);
  return checkVersionedBase58(address, VERSIONS);
}
