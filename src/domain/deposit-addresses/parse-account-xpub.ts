import { HDKey } from '@scure/bip32';
import { createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import type { HdFormat } from './hd-formats.js';
import { ACCEPTED_VERSIONS, findVersion } from './extended-key-versions.js';

const base58check = createBase58check(sha256);

/** BIP-32 serialization: version(4) depth(1) parent fingerprint(4) index(4) chain code(32) key(33). */
const SERIALIZED_LENGTH = 78;
const KEY_OFFSET = 45;

/**
 * An operator-supplied extended key that cannot be used. Messages never quote the key: a pasted
 * private key must not end up in logs or API responses.
 */
export class ExtendedKeyError extends Error {
  override readonly name = 'ExtendedKeyError';
}

/**
 * Parses the account-level extended public key an operator exported for `format`.
 * Accepted encodings are listed in ACCEPTED_VERSIONS (bitcoin: zpub/xpub; litecoin:
 * zpub/Ltub/xpub; dogecoin: dgub/xpub; evm and tron: xpub). Private keys of any version are
 * refused: this service is watch-only and must never hold spending keys.
 * The returned HDKey keeps the key's own version bytes, so `publicExtendedKey` round-trips.
 */
export function parseAccountXpub(format: HdFormat, extendedKey: string): HDKey {
  const trimmed = extendedKey.trim();
  let bytes: Uint8Array;
  try {
    bytes = base58check.decode(trimmed);
  } catch {
    throw new ExtendedKeyError('Not an extended key: base58check decoding failed (typo or truncated?)');
  }
  if (bytes.length !== SERIALIZED_LENGTH) {
    throw new ExtendedKeyError(
      `Not an extended key: expected ${SERIALIZED_LENGTH} bytes, got ${bytes.length}`,
    );
  }
  const versionNumber = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, false);
  const found = findVersion(versionNumber);
  // A 0x00 key prefix is how BIP-32 serializes private keys, whatever the version bytes claim.
  if (found?.kind === 'private' || bytes[KEY_OFFSET] === 0x00) {
    throw new ExtendedKeyError(
      'This is an extended PRIVATE key; only the extended public key may be configured (watch-only). ' +
        'Treat the private key as exposed if it was shared.',
    );
  }
  const accepted = ACCEPTED_VERSIONS[format];
  const names = accepted.map((v) => v.name).join(', ');
  const version = accepted.find((v) => v.public === versionNumber);
  if (!version) {
    const label = found ? found.version.name : `unknown (0x${versionNumber.toString(16).padStart(8, '0')})`;
    throw new ExtendedKeyError(`Key version ${label} is not accepted for ${format} addresses; expected one of: ${names}`);
  }
  try {
    return HDKey.fromExtendedKey(trimmed, { public: version.public, private: version.private });
  } catch (error) {
    // Reached for a key whose bytes are not a point on secp256k1.
    const reason = error instanceof Error ? error.message : String(error);
    throw new ExtendedKeyError(`Invalid extended public key: ${reason}`);
  }
}
