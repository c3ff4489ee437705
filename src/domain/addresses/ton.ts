import { base64, base64url } from '@scure/base';
import { invalid, screenInput, valid, type AddressCheck } from './address-check.js';
import { crc16Xmodem } from './crc16-xmodem.js';

const FRIENDLY_CHARS = 48; // 36 bytes in base64, no padding needed
const FRIENDLY_BYTES = 36; // tag, workchain, 32-byte hash, 2-byte CRC
const BOUNCEABLE = 0x11;
const NON_BOUNCEABLE = 0x51;
const TESTNET_FLAG = 0x80;
const BASECHAIN = 0x00;
const MASTERCHAIN = 0xff; // workchain -1 as a signed byte
const RAW = /^([^:]*):(.*)$/;
const HEX_64 = /^[0-9a-fA-F]{64}$/;
const HEX = /^[0-9a-fA-F]*$/;

/**
 * TON address per TEP-2, in either form:
 * - user-friendly: 48 chars of base64 or base64url (not a mix) over tag (0x11 bounceable,
 *   0x51 non-bounceable; +0x80 = testnet, rejected), workchain (0x00 or 0xff), 32-byte hash
 *   and a big-endian CRC16-XModem of the first 34 bytes;
 * - raw: "0:<64 hex>" or "-1:<64 hex>" (either hex case, as TEP-2 allows). It has no checksum
 *   and no testnet flag, which is why wallets prefer the friendly form.
 */
export function validateTonAddress(address: string): AddressCheck {
  const screened = screenInput(address, 80);
  if (!screened.ok) return screened;
  const raw = RAW.exec(address);
  return raw ? checkRaw(raw[1] ?? '', raw[2] ?? '') : checkFriendly(address);
}

function checkRaw(workchain: string, hash: string): AddressCheck {
  if (workchain !== '0' && workchain !== '-1') return invalid('unsupported workchain');
  if (HEX_64.test(hash)) return valid();
  return invalid(HEX.test(hash) ? 'wrong length' : 'not a hex string');
}

function checkFriendly(address: string): AddressCheck {
  if (address.length !== FRIENDLY_CHARS) return invalid('wrong length');
  const urlSafe = /[-_]/.test(address);
  if (urlSafe && /[+/]/.test(address)) return invalid('mixes base64 and base64url characters');
  let bytes: Uint8Array;
  try {
    bytes = (urlSafe ? base64url : base64).decode(address);
  } catch {
    return invalid('not a valid base64 string');
  }
  if (bytes.length !== FRIENDLY_BYTES) return invalid('wrong length');
  const crc = crc16Xmodem(bytes.subarray(0, 34));
  if (bytes[34] !== crc >> 8 || bytes[35] !== (crc & 0xff)) return invalid('bad checksum');
  const tag = bytes[0] ?? 0;
  if (tag & TESTNET_FLAG) return invalid('testnet address');
  if (tag !== BOUNCEABLE && tag !== NON_BOUNCEABLE) return invalid('unknown address tag');
  const workchain = bytes[1];
  if (workchain !== BASECHAIN && workchain !== MASTERCHAIN) return invalid('unsupported workchain');
  return valid();
}
