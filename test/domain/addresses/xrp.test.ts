import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sha256 } from '@noble/hashes/sha2.js';
import { base58xrp } from '@scure/base';
import { validateAddress } from '../../../src/domain/addresses/index.js';
import { replaceCharAt } from './corrupt.js';

const check = (address: string) => validateAddress('xrp', address);
const rejected = (reason: string) => ({ ok: false, reason });

function xrpBase58Check(payload: number[]): string {
  const bytes = Uint8Array.from(payload);
  return base58xrp.encode(Uint8Array.from([...bytes, ...sha256(sha256(bytes)).subarray(0, 4)]));
}

test('accepts well-known classic addresses', () => {
  for (const address of [
    'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh', // genesis account
    'rrrrrrrrrrrrrrrrrrrrrhoLvTp', // ACCOUNT_ZERO
    'rrrrrrrrrrrrrrrrrrrrBZbvji', // ACCOUNT_ONE
    'rrrrrrrrrrrrrrrrrNAMEtxvNvQ', // name-reservation black hole
    'rGWrZyQqhTp9Xu7G5Pkayo7bXjH4k4QYpf', // XLS-5 / xrpl.js X-address docs example
    'rU6K7V3Po4snVhBBaU29sesqs2qTQJWDw1',
  ]) {
    assert.deepEqual(check(address), { ok: true }, address);
  }
});

test('recognises mainnet X-addresses and asks for the classic form instead', () => {
  const reason = 'X-addresses are not supported: use the classic r-address and a destination tag';
  // rGWrZyQqhTp9Xu7G5Pkayo7bXjH4k4QYpf with tag 4294967295 (xrpl.js docs), and without a tag.
  assert.deepEqual(check('XVLhHMPHU98es4dbozjVtdWzVrDjtV18pX8yuPT7y4xaEHi'), rejected(reason));
  assert.deepEqual(check('X7AcgcsBL6XDcUb289X4mJ8djcdyKaB5hJDWMArnXr61cqZ'), rejected(reason));
});

test('rejects testnet X-addresses', () => {
  // r3SVzk8ApofDJuVBPKdmbbLjWGCCXpBQ2g with tag 123 for Testnet (xrpl.js docs).
  assert.deepEqual(check('T7oKJ3q7s94kDH6tpkBowhetT1JKfcfdSCmAXbS75iATyLD'), rejected('testnet address'));
});

test('one changed character breaks the checksum', () => {
  assert.deepEqual(check(replaceCharAt('rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh', 6, 'z')), rejected('bad checksum'));
  assert.deepEqual(check('rU6K7V3Po4sBBBBBaU29sesqs2qTQJWDw1'), rejected('bad checksum')); // xrpl.js vector
  assert.deepEqual(
    check(replaceCharAt('XVLhHMPHU98es4dbozjVtdWzVrDjtV18pX8yuPT7y4xaEHi', 10, 'a')),
    rejected('bad checksum'),
  );
});

test('rejects Bitcoin-alphabet addresses, other key types and wrong lengths', () => {
  // Same bytes as a valid Bitcoin address, but read in the XRP alphabet the checksum fails.
  assert.deepEqual(check('1EAG1MwmzkG6gRZcYqcRMfC17eMt8TDTit'), rejected('bad checksum'));
  assert.deepEqual(check(xrpBase58Check([0x01, ...new Array<number>(20).fill(5)])), rejected('not an account address'));
  assert.deepEqual(check(xrpBase58Check([0x00, ...new Array<number>(19).fill(5)])), rejected('wrong length'));
  assert.deepEqual(check('rHb9CJAWyB4rj91VRWn96DkukG4bwdtyT0'), rejected('not a valid base58 string'));
  assert.deepEqual(check('rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTl'), rejected('not a valid base58 string'));
});
