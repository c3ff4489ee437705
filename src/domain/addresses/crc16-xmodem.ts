/**
 * CRC-16/XMODEM (poly 0x1021, init 0, no reflection, no final xor). Stellar StrKey and TON
 * user-friendly addresses both use it (their specs call it CRC16 / CRC16-CCITT); no maintained
 * package in the dependency set provides it, and it is a dozen lines checked against vectors.
 */
export function crc16Xmodem(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc;
}
