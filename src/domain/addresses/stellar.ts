import { base32nopad } from '@scure/base';
import { invalid, screenInput, valid, type AddressCheck } from './address-check.js';
import { crc16Xmodem } from './crc16-xmodem.js';

// SEP-23 version bytes (key type in the top 5 bits, algorithm in the low 3).
const ED25519_PUBLIC_KEY = 6 << 3; // "G"
const MUXED_ACCOUNT = 12 << 3; // "M"
const SECRET_SEED = 18 << 3; // "S"
const ACCOUNT_CHARS = 56; // 1 + 32 + 2 bytes
const MUXED_CHARS = 69; // 1 + 32 + 8 + 2 bytes

/**
 * Stellar account ID ("G...", SEP-23 StrKey): RFC 4648 base32 without padding of version byte
 * 6<<3, 32-byte ed25519 key and a little-endian CRC16-XModem, 56 characters.
 *
 * Muxed accounts ("M...") are decoded and then rejected: like XRP X-addresses they embed the
 * routing ID that this API carries in its memo field, and not every sender can pay to them.
 * The partner is asked for the G... account plus a memo instead.
 * Stellar testnet uses the same account IDs, so there is no testnet form to reject.
 */
export function validateStellarAddress(address: string): AddressCheck {
  const screened = screenInput(address, 200);
  if (!screened.ok) return screened;
  const first = address.charAt(0);
  // SEP-23: check lengths before decoding, since some lengths only fail on subtle padding rules.
  if (first === 'G' && address.length !== ACCOUNT_CHARS) return invalid('wrong length');
  if (first === 'M' && address.length !== MUXED_CHARS) return invalid('wrong length');

  let bytes: Uint8Array;
  try {
    // Strict: rejects lowercase, '=' padding and non-zero unused trailing bits, as SEP-23 requires.
    bytes = base32nopad.decode(address);
  } catch {
    return invalid('not a valid base32 string');
  }
  if (bytes.length < 3) return invalid('wrong length');
  const body = bytes.subarray(0, bytes.length - 2);
  const crc = crc16Xmodem(body);
  if (bytes[bytes.length - 2] !== (crc & 0xff) || bytes[bytes.length - 1] !== crc >> 8) {
    return invalid('bad checksum');
  }

  const version = body[0] ?? 0;
  if ((version & 0x07) !== 0) return invalid('unsupported key algorithm');
  switch (version) {
    case ED25519_PUBLIC_KEY:
      return body.length === 33 ? valid() : invalid('wrong length');
    case MUXED_ACCOUNT:
      return invalid('muxed (M...) accounts are not supported: use the G... account and a memo');
    case SECRET_SEED:
      return invalid('this is a secret seed, not an address');
    default:
      return invalid('not an account (G...) address');
  }
}
