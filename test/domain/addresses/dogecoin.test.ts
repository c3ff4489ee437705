import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';
import { validateAddress } from '../../../src/domain/addresses/index.js';
import { replaceCharAt } from './corrupt.js';

const check = (address: string) => validateAddress('dogecoin', address);
const rejected = (reason: string) => ({ ok: false, reason });

test('accepts real mainnet P2PKH (D...) and P2SH (9.../A...) addresses', () => {
  for (const address of [
    'DDWUYQ3GfMDj8hkx8cbnAMYkTzzAunAQxg',
    'DEa7damK8MsbdCJztidBasZKVsDLJifWfE',
    'DNkkfdUvkCDiywYE98MTVp9nQJTgeZAiFr',
    'DPpJVPpvPNP6i6tMj4rTycAGh8wReTqaSU',
    'A7JjzK9k9x5b2MkkQzqt91WZsuu7wTu6iS',
    'A5qAJPAc1Ym4A815HcvLKe6Bp5DJeRPJtF',
  ]) {
    assert.deepEqual(check(address), { ok: true }, address);
  }
  // 0x16 with a small hash spells "9..."; both spellings are the same version byte.
  const nine = createBase58check(sha256).encode(Uint8Array.from([0x16, ...new Uint8Array(20)]));
  assert.ok(nine.startsWith('9'));
  assert.deepEqual(check(nine), { ok: true });
});

test('rejects testnet addresses', () => {
  assert.deepEqual(check('2MxKEf2su6FGAUfCEAHreGFQvEYrfYNHvL7'), { ok: false, reason: 'testnet address' });
  const testnetP2pkh = createBase58check(sha256).encode(Uint8Array.from([0x71, ...new Uint8Array(20).fill(9)]));
  assert.deepEqual(check(testnetP2pkh), rejected('testnet address'));
});

test('rejects other networks, SegWit and corrupted addresses', () => {
  assert.deepEqual(check('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'), rejected('wrong network prefix'));
  assert.deepEqual(check('3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy'), rejected('wrong network prefix'));
  assert.deepEqual(check('LgfapHEPhZbRF9pMd5WPT35hFXcZS1USrW'), rejected('wrong network prefix'));
  assert.deepEqual(check('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'), rejected('wrong length'));
  assert.deepEqual(check(replaceCharAt('DDWUYQ3GfMDj8hkx8cbnAMYkTzzAunAQxg', 8, 'g')), rejected('bad checksum'));
  assert.deepEqual(check(replaceCharAt('A7JjzK9k9x5b2MkkQzqt91WZsuu7wTu6iS', -1, 'T')), rejected('bad checksum'));
  // Bisq's invalid vectors: extra leading "1", extra trailing char, a "#".
  assert.deepEqual(check('1DDWUYQ3GfMDj8hkx8cbnAMYkTzzAunAQxg'), rejected('bad checksum'));
  assert.deepEqual(check('DDWUYQ3GfMDj8hkx8cbnAMYkTzzAunAQxgs'), rejected('bad checksum'));
  assert.deepEqual(check('DDWUYQ3GfMDj8hkx8cbnAMYkTzzAunAQxg#'), rejected('not a valid base58 string'));
});
