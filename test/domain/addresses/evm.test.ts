import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateAddress } from '../../../src/domain/addresses/index.js';
import { replaceCharAt } from './corrupt.js';

const check = (address: string) => validateAddress('evm', address);
const rejected = (reason: string) => ({ ok: false, reason });

// The examples from EIP-55 itself: all-caps, all-lower and mixed-case checksummed.
const EIP55_MIXED = [
  '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
  '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
];

test('accepts the EIP-55 example addresses', () => {
  for (const address of [
    '0x52908400098527886E0F7030069857D2E4169EE7',
    '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
    '0xde709f2102306220921060314715629080e2fb77',
    '0x27b1fdb04752bbc536007a920d24acb045561c26',
    ...EIP55_MIXED,
  ]) {
    assert.deepEqual(check(address), { ok: true }, address);
  }
});

test('accepts single-case spellings of checksummed addresses (they carry no checksum)', () => {
  for (const address of EIP55_MIXED) {
    const hex = address.slice(2);
    assert.deepEqual(check(`0x${hex.toLowerCase()}`), { ok: true });
    assert.deepEqual(check(`0x${hex.toUpperCase()}`), { ok: true });
  }
});

test('rejects mixed case that does not match EIP-55', () => {
  const reason = 'mixed-case address fails EIP-55 checksum';
  assert.deepEqual(check('0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'), rejected(reason)); // one letter flipped
  assert.deepEqual(check('0xfb6916095ca1df60bB79Ce92cE3Ea74c37c5d359'), rejected(reason));
  assert.deepEqual(check('0xDBF03B407c01E7cD3CBea99509d93f8DDDC8C6FB'), rejected(reason));
  // A changed hex digit keeps the case pattern but no longer matches the hash.
  assert.deepEqual(check(replaceCharAt('0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb', 5, '3')), rejected(reason));
});

test('rejects wrong prefix, length and characters', () => {
  assert.deepEqual(check('5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'), rejected('missing 0x prefix'));
  assert.deepEqual(check('0X5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'), rejected('missing 0x prefix'));
  assert.deepEqual(check('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe'), rejected('wrong length'));
  assert.deepEqual(check('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed00'), rejected('wrong length'));
  assert.deepEqual(check('0x'), rejected('wrong length'));
  assert.deepEqual(check('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeg'), rejected('not a hex string'));
  assert.deepEqual(check('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1Be'), rejected('wrong length'));
});
