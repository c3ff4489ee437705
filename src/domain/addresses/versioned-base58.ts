import { base58 } from '@scure/base';
import { invalid, valid, type AddressCheck } from './address-check.js';
import { decodeBase58Check } from './base58check.js';

/** Version bytes a network uses for its base58check addresses (P2PKH, P2SH, Tron accounts). */
export type VersionBytes = {
  mainnet: readonly number[];
  /** Known testnet versions, so the partner gets "testnet address" instead of a vague prefix error. */
  testnet: readonly number[];
};

// One version byte + a 20-byte hash (HASH160 for Bitcoin-likes, Keccak-derived for Tron).
const PAYLOAD_BYTES = 21;

/** Base58check address made of one version byte and a 20-byte hash, in the Bitcoin alphabet. */
export function checkVersionedBase58(address: string, versions: VersionBytes): AddressCheck {
  const decoded = decodeBase58Check(base58, address);
  if (!decoded.ok) return decoded;
  if (decoded.payload.length !== PAYLOAD_BYTES) return invalid('wrong length');
  const version = decoded.payload[0] ?? -1;
  if (versions.mainnet.includes(version)) return valid();
  if (versions.testnet.includes(version)) return invalid('testnet address');
  return invalid('wrong network prefix');
}
