import { sha256 } from '@noble/hashes/sha2.js';
import type { BytesCoder } from '@scure/base';

export type Base58CheckDecoded = { ok: true; payload: Uint8Array } | { ok: false; reason: string };

const CHECKSUM_BYTES = 4;

/**
 * Base58Check (4-byte double-SHA-256 checksum) over any base58 alphabet. @scure/base's
 * `createBase58check` only knows the Bitcoin alphabet and reports every failure the same way;
 * doing the split here lets XRP reuse it and lets callers tell "not base58" from "bad checksum".
 */
export function decodeBase58Check(alphabet: BytesCoder, text: string): Base58CheckDecoded {
  let bytes: Uint8Array;
  try {
    bytes = alphabet.decode(text);
  } catch {
    return { ok: false, reason: 'not a valid base58 string' };
  }
  if (bytes.length <= CHECKSUM_BYTES) return { ok: false, reason: 'wrong length' };
  const payload = bytes.subarray(0, bytes.length - CHECKSUM_BYTES);
  const expected = sha256(sha256(payload));
  for (let i = 0; i < CHECKSUM_BYTES; i++) {
    if (bytes[payload.length + i] !== expected[i]) return { ok: false, reason: 'bad checksum' };
  }
  return { ok: true, payload };
}
