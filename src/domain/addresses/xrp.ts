import { base58xrp } from '@scure/base';
import { invalid, screenInput, valid, type AddressCheck } from './address-check.js';
import { decodeBase58Check } from './base58check.js';

// Classic address: type byte 0x00 + 20-byte account ID.
const CLASSIC_PAYLOAD_BYTES = 21;
const ACCOUNT_ID_TYPE = 0x00;
// X-address: 2 network bytes + 20-byte account ID + tag flag + 8-byte tag.
const X_ADDRESS_PAYLOAD_BYTES = 31;
const X_MAINNET = [0x05, 0x44];
const X_TESTNET = [0x04, 0x93];

/**
 * XRP Ledger classic address ("r..."): base58check in the XRP alphabet, version 0x00, 20 bytes.
 *
 * X-addresses (XLS-5, "X..." / "T...") are recognised but rejected: they pack the destination
 * tag into the address, while this API carries the tag in its own memo field. Accepting both
 * would let the two disagree, so the partner is asked for the classic address plus the tag.
 * Classic addresses are the same on test networks, so there is no testnet form to reject.
 */
export function validateXrpAddress(address: string): AddressCheck {
  const screened = screenInput(address, 50);
  if (!screened.ok) return screened;
  const decoded = decodeBase58Check(base58xrp, address);
  if (!decoded.ok) return decoded;
  const payload = decoded.payload;
  if (payload.length === X_ADDRESS_PAYLOAD_BYTES) {
    if (hasPrefix(payload, X_MAINNET)) {
      return invalid('X-addresses are not supported: use the classic r-address and a destination tag');
    }
    if (hasPrefix(payload, X_TESTNET)) return invalid('testnet address');
  }
  if (payload.length !== CLASSIC_PAYLOAD_BYTES) return invalid('wrong length');
  if (payload[0] !== ACCOUNT_ID_TYPE) return invalid('not an account address');
  return valid();
}

function hasPrefix(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return prefix.every((byte, i) => bytes[i] === byte);
}
