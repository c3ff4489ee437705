import { randomBytes } from 'node:crypto';
import { bech32, createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import type { AddressFormat } from '../address-format.js';
import { toChecksumAddress } from './address-encoding.js';
import { demoAddress } from './demo-addresses.js';

const base58check = createBase58check(sha256);
/** Dogecoin mainnet P2PKH version byte, TRON's address prefix (as derived addresses use). */
const DOGECOIN_P2PKH_VERSION = 0x1e;
const TRON_PREFIX = 0x41;

/**
 * The deposit address of a sandbox order (docs/contract.md §7.6): in the network's mainnet form, so the
 * partner's integration handles it exactly as a live one (validation, QR, payment URI), but made
 * of random bytes where a key hash or public key belongs, so nobody holds a key for it and it is
 * none of the operator's: never derived from the operator's xpub (no index used, no gap in the
 * wallet), never the operator's memo address, never a pool row. Coins really sent to it are lost
 * (like the demo wallet's, docs/adr/0004-deposit-addresses.md); the order runs on the simulator whatever arrives.
 *
 * A memo network's sandbox deposit also gets a tag, as its live ones do (random, six digits or
 * more, so it looks like one).
 */
export function sandboxDepositAddress(format: AddressFormat, memo: boolean, random: (size: number) => Uint8Array = randomBytes): {
  address: string;
  tag: string | null;
} {
  return { address: keylessAddress(format, random), tag: memo ? String(100_000 + (uint32(random(4)) % 900_000_000)) : null };
}

function uint32(bytes: Uint8Array): number {
  return new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0);
}

function keylessAddress(format: AddressFormat, random: (size: number) => Uint8Array): string {
  switch (format) {
    case 'bitcoin':
      return bech32.encode('bc', [0, ...bech32.toWords(random(20))]);
    case 'litecoin':
      return bech32.encode('ltc', [0, ...bech32.toWords(random(20))]);
    case 'dogecoin':
      return base58check.encode(Uint8Array.of(DOGECOIN_P2PKH_VERSION, ...random(20)));
    case 'evm':
      return toChecksumAddress(random(20));
    case 'tron':
      return base58check.encode(Uint8Array.of(TRON_PREFIX, ...random(20)));
    case 'solana':
    case 'xrp':
    case 'stellar':
    case 'ton':
      // The demo wallet's generator already makes keyless addresses of these forms.
      return demoAddress(format);
  }
}
