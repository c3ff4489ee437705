import { randomBytes } from 'node:crypto';
import { base32, base58, base58xrp } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import type { AddressFormat } from '../address-format.js';
import { crc16Xmodem } from '../addresses/crc16-xmodem.js';

/**
 * Random, well-formed addresses for the embedded demo on networks that use one shared address
 * with memos (XRP, XLM, TON) or an address pool (SOL). Nobody holds their keys: they exist so a
 * fresh install can show the whole order flow, and must never be used with real funds.
 */
export function demoAddress(format: AddressFormat): string {
  switch (format) {
    case 'xrp': {
      const payload = new Uint8Array([0x00, ...randomBytes(20)]);
      const checksum = sha256(sha256(payload)).subarray(0, 4);
      return base58xrp.encode(new Uint8Array([...payload, ...checksum]));
    }
    case 'stellar': {
      // StrKey: version byte (ed25519 public key = 6 << 3), key, CRC16-XModem little-endian.
      const body = new Uint8Array([6 << 3, ...randomBytes(32)]);
      const crc = crc16Xmodem(body);
      return base32.encode(new Uint8Array([...body, crc & 0xff, crc >> 8]));
    }
    case 'ton':
      return `0:${randomBytes(32).toString('hex')}`;
    case 'solana':
      return base58.encode(randomBytes(32));
    default:
      throw new Error(`no demo address form for ${format}: it derives addresses from an xpub`);
  }
}
