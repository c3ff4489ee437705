import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';
import { validateAddress } from '../../../src/domain/addresses/index.js';
import { replaceCharAt } from './corrupt.js';

const check = (address: string) => validateAddress('bitcoin', address);
const rejected = (reason: string) => ({ ok: false, reason });

test('accepts well-known legacy addresses', () => {
  for (const address of [
    '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', // genesis coinbase
    '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', // Bitcoin wiki P2PKH example
    '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', // Bitcoin wiki P2SH example
    '3P14159f73E4gFr7JterCCQh9QjiTjiZrG',
  ]) {
    assert.deepEqual(check(address), { ok: true }, address);
  }
});

test('accepts the BIP-173/BIP-350 mainnet SegWit vectors, either case', () => {
  for (const address of [
    'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', // v0, 20 bytes, uppercase
    'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
    'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3', // v0, 32 bytes
    'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0', // v1 taproot
    'BC1SW50QGDZ25J', // v16, 2 bytes
    'bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs', // v2, 16 bytes
  ]) {
    assert.deepEqual(check(address), { ok: true }, address);
  }
});

test('rejects a v1 program that is not 32 bytes (not Taproot, anyone-can-spend)', () => {
  // Valid BIP-350 encoding of a 40-byte v1 program; refused on purpose, see segwit.ts.
  assert.deepEqual(
    check('bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y'),
    rejected('wrong witness program length'),
  );
});

test('rejects the BIP-350 invalid SegWit vectors with the matching reason', () => {
  const cases: [string, string][] = [
    ['tc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq5zuyut', 'wrong network prefix'],
    ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd', 'bad checksum: witness v0 needs bech32, v1+ needs bech32m'],
    ['BC1S0XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ54WELL', 'bad checksum: witness v0 needs bech32, v1+ needs bech32m'],
    ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh', 'bad checksum: witness v0 needs bech32, v1+ needs bech32m'],
    ['bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4', 'not a valid bech32 string'],
    ['BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R', 'invalid witness version'],
    ['bc1pw5dgrnzv', 'wrong witness program length'],
    ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav', 'wrong witness program length'],
    ['BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P', 'wrong witness program length'],
    ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf', 'invalid padding in witness program'],
    ['bc1gmk9yu', 'missing witness version'],
  ];
  for (const [address, reason] of cases) assert.deepEqual(check(address), rejected(reason), address);
});

test('rejects testnet addresses of every kind', () => {
  for (const address of [
    'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7', // BIP-173 testnet vector
    'tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c', // BIP-350 testnet vector
    'mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn', // P2PKH 0x6f ("m")
    '2MzQwSSnBHWHqSAqtTVQ6v47XtaisrJa1Vc', // P2SH 0xc4 ("2")
  ]) {
    assert.deepEqual(check(address), rejected('testnet address'), address);
  }
  // "n..." is the other testnet P2PKH spelling; build one from a known hash so it is certain.
  const testnetN = createBase58check(sha256).encode(Uint8Array.from([0x6f, ...new Uint8Array(20).fill(0xff)]));
  assert.ok(testnetN.startsWith('n'));
  assert.deepEqual(check(testnetN), rejected('testnet address'));
});

test('rejects mixed-case bech32', () => {
  assert.deepEqual(check('bc1qW508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'), rejected('mixed-case bech32 address'));
  assert.deepEqual(
    check('tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq'), // BIP-350 vector
    rejected('mixed-case bech32 address'),
  );
});

test('one changed character breaks the checksum', () => {
  assert.deepEqual(check(replaceCharAt('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 10, 'X')), rejected('bad checksum'));
  assert.deepEqual(check(replaceCharAt('3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', -1, 'z')), rejected('bad checksum'));
  assert.deepEqual(
    check(replaceCharAt('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 12, 'x')),
    rejected('bad checksum'),
  );
  assert.deepEqual(
    check(replaceCharAt('bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0', 20, 'q')),
    rejected('bad checksum'),
  );
});

test('rejects other networks, wrong lengths and non-base58 characters', () => {
  assert.deepEqual(check('LgfapHEPhZbRF9pMd5WPT35hFXcZS1USrW'), rejected('wrong network prefix')); // Litecoin
  assert.deepEqual(check('DDWUYQ3GfMDj8hkx8cbnAMYkTzzAunAQxg'), rejected('wrong network prefix')); // Dogecoin
  assert.deepEqual(check('ltc1qxtm55gultqzhqzl2p3ks50hg2478y3hehuj6dz'), rejected('wrong network prefix'));
  // Valid base58check, but a 19-byte hash.
  const short = createBase58check(sha256).encode(new Uint8Array(20));
  assert.deepEqual(check(short), rejected('wrong length'));
  assert.deepEqual(check('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'.slice(0, -1)), rejected('bad checksum'));
  assert.deepEqual(check('1A1zP1eP5QGefi2DMPTfTL5SLmv7Div0Na'), rejected('not a valid base58 string'));
});
