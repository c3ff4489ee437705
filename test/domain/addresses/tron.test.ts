import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';
import { validateAddress } from '../../../src/domain/addresses/index.js';
import { replaceCharAt } from './corrupt.js';

const check = (address: string) => validateAddress('tron', address);
const rejected = (reason: string) => ({ ok: false, reason });

test('accepts well-known mainnet addresses', () => {
  for (const address of [
    'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', // USDT (TRC-20) contract
    'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb', // 0x41 + zero hash, the "black hole" address
    'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8', // USDC (TRC-20) contract
    'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7',
  ]) {
    assert.deepEqual(check(address), { ok: true }, address);
  }
});

test('one changed character breaks the checksum', () => {
  assert.deepEqual(check(replaceCharAt('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', 4, 'X')), rejected('bad checksum'));
  assert.deepEqual(check(replaceCharAt('TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8', -1, '9')), rejected('bad checksum'));
});

test('rejects other prefixes, lengths and the hex form', () => {
  // Bitcoin-style base58check: right shape, wrong version byte.
  assert.deepEqual(check('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'), rejected('wrong network prefix'));
  const tooShort = createBase58check(sha256).encode(Uint8Array.from([0x41, ...new Uint8Array(19)]));
  assert.deepEqual(check(tooShort), rejected('wrong length'));
  assert.deepEqual(check('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6'), rejected('bad checksum'));
  assert.deepEqual(check('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj0t'), rejected('not a valid base58 string'));
  assert.deepEqual(
    check('41a614f803b6fd780986a42c78ec9c7f77e6ded13c'), // USDT contract in hex
    rejected('hex-form Tron address: use the base58 T... form'),
  );
  assert.deepEqual(check('0x52908400098527886E0F7030069857D2E4169EE7'), rejected('not a valid base58 string'));
});
