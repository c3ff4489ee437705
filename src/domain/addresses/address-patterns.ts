import type { AddressFormat } from '../address-format.js';

/**
 * A regular expression per address format that a wallet can pre-check an address with before it
 * asks the server (the Currency's `address_regex`, docs/contract.md §10.7). Each one accepts every address
 * the validator beside it accepts (test/domain/addresses/address-patterns.test.ts runs the
 * validators' test vectors and generated valid addresses through them); it may accept strings
 * the validator refuses (a checksum is beyond a regex), so the server's answer stays the judge.
 * Written in the subset every regex engine shares (anchors, classes, counted repeats,
 * non-capturing groups), so JavaScript, Swift, Kotlin and Dart read it alike.
 */

/** The Bitcoin base58 alphabet (no 0, O, I, l); XRP's alphabet is the same set in another order. */
const BASE58 = '[1-9A-HJ-NP-Za-km-z]';
/** The bech32 data characters (no 1, b, i, o), in one case. */
const BECH32_LOWER = '[02-9ac-hj-np-z]';
const BECH32_UPPER = '[02-9AC-HJ-NP-Z]';

/**
 * A base58check address of one version byte, a 20-byte hash and a 4-byte checksum: 25 bytes are
 * 25 to 35 characters (each leading zero byte is one '1'); `first` is the characters the
 * network's version bytes can start it with.
 */
const base58check25 = (first: string): string => `${first}${BASE58}{24,34}`;

/** Native SegWit under `hrp`, all lower or all upper case: at least 11 data characters (v16, 2 bytes), at most 90 in all. */
const segwit = (hrp: string): string =>
  `${hrp}1${BECH32_LOWER}{11,${89 - hrp.length}}|${hrp.toUpperCase()}1${BECH32_UPPER}{11,${89 - hrp.length}}`;

const anchored = (alternatives: string): string => `^(?:${alternatives})$`;

export const ADDRESS_PATTERNS: Readonly<Record<AddressFormat, string>> = Object.freeze({
  // P2PKH 0x00 ("1"), P2SH 0x05 ("3").
  bitcoin: anchored(`${base58check25('[13]')}|${segwit('bc')}`),
  // P2PKH 0x30 ("L"), P2SH 0x32 ("M") and 0x05 ("3").
  litecoin: anchored(`${base58check25('[LM3]')}|${segwit('ltc')}`),
  // P2PKH 0x1e ("D"), P2SH 0x16 ("9" or "A").
  dogecoin: anchored(base58check25('[9AD]')),
  // Either case: single case carries no checksum, mixed case is EIP-55 (checked by the server).
  evm: '^0x[0-9a-fA-F]{40}$',
  // 0x41 + 20 bytes is always "T" and 34 characters.
  tron: `^T${BASE58}{33}$`,
  // 32 bytes in base58: 32 ("1" × 32) to 44 characters.
  solana: `^${BASE58}{32,44}$`,
  // Classic address: version 0x00 is "r" in the XRP alphabet.
  xrp: `^r${BASE58}{24,34}$`,
  // StrKey account ID: "G" and 55 base32 characters.
  stellar: '^G[A-Z2-7]{55}$',
  // User-friendly (tag 0x11 "E" or 0x51 "U", base64url or base64, 48 characters) or raw.
  ton: anchored('[EU][A-Za-z0-9_-]{47}|[EU][A-Za-z0-9+/]{47}|(?:0|-1):[0-9a-fA-F]{64}'),
});

/** The pattern of a format (the Currency's address_regex). */
export function addressPattern(format: AddressFormat): string {
  return ADDRESS_PATTERNS[format];
}
