import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sha256 } from '@noble/hashes/sha2.js';
import { bech32, bech32m, createBase58check } from '@scure/base';
import { validateAddress } from '../../../src/domain/addresses/index.js';
import { replaceCharAt } from './corrupt.js';

const check = (address: string) => validateAddress('litecoin', address);
const rejected = (reason: string) => ({ ok: false, reason });
const base58check = createBase58check(sha256);
const versioned = (version: number) => base58check.encode(Uint8Array.from([version, ...new Uint8Array(20).fill(7)]));

test('accepts real mainnet addresses: L..., M..., legacy 3... and ltc1', () => {
  for (const address of [
    'LgfapHEPhZbRF9pMd5WPT35hFXcZS1USrW',
    'LTuoeY6RBHV3n3cfhXVVTbJbxzxnXs9ofm',
    'Lg3PX8wRWmApFCoCMAsPF5P9dPHYQHEWKW',
    'MGEW4aba3tnrVtVhGcmoqqHaLt5ymPSLPi',
    '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', // 0x05 P2SH, still valid on Litecoin
    'ltc1qxtm55gultqzhqzl2p3ks50hg2478y3hehuj6dz',
    'LTC1QXTM55GULTQZHQZL2P3KS50HG2478Y3HEHUJ6DZ',
  ]) {
    assert.deepEqual(check(address), { ok: true }, address);
  }
});

test('uses bech32m for witness v1+ and bech32 for v0', () => {
  const program = new Uint8Array(32).fill(0xab);
  const taproot = bech32m.encode('ltc', [1, ...bech32m.toWords(program)]);
  assert.deepEqual(check(taproot), { ok: true });
  const v1WithBech32 = bech32.encode('ltc', [1, ...bech32.toWords(program)]);
  assert.deepEqual(check(v1WithBech32), rejected('bad checksum: witness v0 needs bech32, v1+ needs bech32m'));
  const v0WithBech32m = bech32m.encode('ltc', [0, ...bech32m.toWords(program)]);
  assert.deepEqual(check(v0WithBech32m), rejected('bad checksum: witness v0 needs bech32, v1+ needs bech32m'));
});

test('rejects testnet forms', () => {
  const program = new Uint8Array(20).fill(1);
  assert.deepEqual(check(bech32.encode('tltc', [0, ...bech32.toWords(program)])), rejected('testnet address'));
  assert.deepEqual(check(versioned(0x6f)), rejected('testnet address'));
  assert.deepEqual(check(versioned(0x3a)), rejected('testnet address')); // "Q..."
});

test('rejects other networks and MWEB', () => {
  assert.deepEqual(check('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'), rejected('wrong network prefix'));
  assert.deepEqual(check('DDWUYQ3GfMDj8hkx8cbnAMYkTzzAunAQxg'), rejected('wrong network prefix'));
  assert.deepEqual(check('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'), rejected('wrong network prefix'));
  assert.deepEqual(
    check('ltcmweb1qqt9rgh2v6wg6jwfzp3ewqnqy35c0k7r4vm6j0vgr6wfcwj6kwdzkqq7zzr5wgx'),
    rejected('MWEB addresses are not supported'),
  );
});

test('one changed character breaks the checksum', () => {
  assert.deepEqual(check(replaceCharAt('LgfapHEPhZbRF9pMd5WPT35hFXcZS1USrW', 5, 'Q')), rejected('bad checksum'));
  assert.deepEqual(check(replaceCharAt('MGEW4aba3tnrVtVhGcmoqqHaLt5ymPSLPi', -3, 'a')), rejected('bad checksum'));
  assert.deepEqual(
    check(replaceCharAt('ltc1qxtm55gultqzhqzl2p3ks50hg2478y3hehuj6dz', 15, 'q')),
    rejected('bad checksum'),
  );
});
