import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crc16Xmodem } from '../../../src/domain/addresses/crc16-xmodem.js';

const ascii = (text: string) => new TextEncoder().encode(text);

test('matches the published CRC-16/XMODEM check values', () => {
  // Catalogue check value for "123456789" (reveng CRC-16/XMODEM): 0x31C3.
  assert.equal(crc16Xmodem(ascii('123456789')), 0x31c3);
  assert.equal(crc16Xmodem(ascii('A')), 0x58e5);
  assert.equal(crc16Xmodem(new Uint8Array(0)), 0x0000);
});

test('reproduces the checksum inside the SEP-23 account vector', () => {
  // GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ is version 6<<3, this key (bytes
  // from SEP-23), then the CRC stored little-endian as c8 d9.
  const key = [
    0x3f, 0x0c, 0x34, 0xbf, 0x93, 0xad, 0x0d, 0x99, 0x71, 0xd0, 0x4c, 0xcc, 0x90, 0xf7, 0x05, 0x51,
    0x1c, 0x83, 0x8a, 0xad, 0x97, 0x34, 0xa4, 0xa2, 0xfb, 0x0d, 0x7a, 0x03, 0xfc, 0x7f, 0xe8, 0x9a,
  ];
  const crc = crc16Xmodem(Uint8Array.from([6 << 3, ...key]));
  assert.equal(crc, 0xd9c8);
});
