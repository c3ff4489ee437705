import { keccak_256 } from '@noble/hashes/sha3.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { invalid, screenInput, valid, type AddressCheck } from './address-check.js';

const HEX = /^[0-9a-fA-F]*$/;

/**
 * EVM account: "0x" + 40 hex digits. Single-case input carries no checksum and is accepted;
 * mixed case is an EIP-55 checksum and must match, because a typo in a checksummed address
 * is exactly what EIP-55 exists to catch.
 */
export function validateEvmAddress(address: string): AddressCheck {
  const screened = screenInput(address, 42);
  if (!screened.ok) return screened;
  if (!address.startsWith('0x')) return invalid('missing 0x prefix');
  const hex = address.slice(2);
  if (!HEX.test(hex)) return invalid('not a hex string');
  if (hex.length !== 40) return invalid('wrong length');
  const lower = hex.toLowerCase();
  if (hex === lower || hex === hex.toUpperCase()) return valid();
  return matchesEip55(hex, lower) ? valid() : invalid('mixed-case address fails EIP-55 checksum');
}

// EIP-55: hex letter i is uppercase iff nibble i of keccak256(lowercase hex as ASCII) is >= 8.
function matchesEip55(hex: string, lower: string): boolean {
  const hash = keccak_256(utf8ToBytes(lower));
  for (let i = 0; i < hex.length; i++) {
    const char = hex.charAt(i);
    if (char >= '0' && char <= '9') continue;
    const byte = hash[i >> 1] ?? 0;
    const nibble = i % 2 === 0 ? byte >> 4 : byte & 0x0f;
    const wantUpper = nibble >= 8;
    if ((char === char.toUpperCase()) !== wantUpper) return false;
  }
  return true;
}
