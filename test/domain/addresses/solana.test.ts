import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ed25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';
import { validateAddress } from '../../../src/domain/addresses/index.js';
import { replaceCharAt } from './corrupt.js';

const check = (address: string) => validateAddress('solana', address);
const rejected = (reason: string) => ({ ok: false, reason });

function isOnCurve(address: string): boolean {
  try {
    ed25519.Point.fromBytes(base58.decode(address));
    return true;
  } catch {
    return false;
  }
}

test('accepts well-known mainnet accounts', () => {
  for (const address of [
    '11111111111111111111111111111111', // System Program (32 zero bytes)
    'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', // SPL Token program
    'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', // USDC mint
    'So11111111111111111111111111111111111111112', // wrapped SOL mint
    'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB', // USDT mint
  ]) {
    assert.deepEqual(check(address), { ok: true }, address);
  }
});

test('accepts off-curve addresses too (no ed25519 point check, by design)', () => {
  for (const address of ['Vote111111111111111111111111111111111111111', 'Sysvar1nstructions1111111111111111111111111']) {
    assert.equal(isOnCurve(address), false, `${address} should be off-curve for this test to mean anything`);
    assert.deepEqual(check(address), { ok: true }, address);
  }
});

test('rejects strings that do not decode to exactly 32 bytes', () => {
  assert.deepEqual(check('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'), rejected('wrong length')); // 25 bytes
  assert.deepEqual(check(base58.encode(new Uint8Array(31).fill(0xff))), rejected('wrong length'));
  assert.deepEqual(check('1111111111111111111111111111111'), rejected('wrong length')); // 31 zero bytes
  assert.deepEqual(check('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1vv'), rejected('wrong length')); // 45 chars
  assert.deepEqual(check(base58.encode(new Uint8Array(33).fill(0xff))), rejected('wrong length'));
});

test('rejects non-base58 characters, including a typo into 0/O/I/l', () => {
  const usdc = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
  for (const typo of ['0', 'O', 'I', 'l']) {
    assert.deepEqual(check(replaceCharAt(usdc, 5, typo)), rejected('not a valid base58 string'), typo);
  }
  assert.deepEqual(check('0x52908400098527886E0F7030069857D2E4169EE7'), rejected('not a valid base58 string'));
});

test('cannot catch a typo that stays in the alphabet: Solana addresses have no checksum', () => {
  // Documented limitation, asserted so that adding a checksum-like rule would be a visible change.
  assert.deepEqual(check(replaceCharAt('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', 5, 'e')), { ok: true });
});
