import { bech32, createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';

const base58check = createBase58check(sha256);

export function hash160(bytes: Uint8Array): Uint8Array {
  return ripemd160(sha256(bytes));
}

/** BIP-141 P2WPKH: witness version 0 program = hash160 of the 33-byte compressed key. */
export function p2wpkhAddress(hrp: 'bc' | 'ltc', compressedPublicKey: Uint8Array): string {
  const program = hash160(compressedPublicKey);
  return bech32.encode(hrp, [0, ...bech32.toWords(program)]);
}

/** Legacy P2PKH: base58check(version byte || hash160 of the compressed key). */
export function p2pkhAddress(versionByte: number, compressedPublicKey: Uint8Array): string {
  return base58check.encode(Uint8Array.of(versionByte, ...hash160(compressedPublicKey)));
}

/**
 * The 20-byte account id shared by Ethereum and TRON: last 20 bytes of keccak-256 over the
 * uncompressed point without its 0x04 prefix. BIP-32 only hands out compressed keys, so the
 * point is decompressed first.
 */
export function evmAccountId(compressedPublicKey: Uint8Array): Uint8Array {
  const uncompressed = secp256k1.Point.fromBytes(compressedPublicKey).toBytes(false);
  return keccak_256(uncompressed.subarray(1)).subarray(12);
}

/** EIP-55 mixed-case checksum: uppercase a hex letter when its keccak nibble is >= 8. */
export function toChecksumAddress(accountId: Uint8Array): string {
  if (accountId.length !== 20) throw new RangeError(`EVM account id must be 20 bytes, got ${accountId.length}`);
  const lower = bytesToHex(accountId);
  const hash = bytesToHex(keccak_256(utf8ToBytes(lower)));
  let out = '0x';
  for (let i = 0; i < lower.length; i++) {
    out += parseInt(hash[i]!, 16) >= 8 ? lower[i]!.toUpperCase() : lower[i]!;
  }
  return out;
}

/** TRON mainnet: base58check(0x41 || 20-byte account id), which always starts with `T`. */
export function tronAddress(accountId: Uint8Array): string {
  return base58check.encode(Uint8Array.of(0x41, ...accountId));
}
