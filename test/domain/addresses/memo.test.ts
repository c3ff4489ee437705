import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ADDRESS_FORMATS } from '../../../src/domain/address-format.js';
import { validateMemo } from '../../../src/domain/addresses/index.js';

const rejected = (reason: string) => ({ ok: false, reason });

test('xrp destination tag: canonical decimal uint32', () => {
  for (const tag of ['0', '1', '12345', '4294967295']) {
    assert.deepEqual(validateMemo('xrp', tag), { ok: true }, tag);
  }
  const notCanonical = 'destination tag must be a decimal integer without sign or leading zeros';
  for (const tag of ['+1', '-1', '01', '00', '1.0', '1e3', '0x10', 'abc', ' 1', '1 ', '١٢٣']) {
    assert.deepEqual(validateMemo('xrp', tag), rejected(notCanonical), tag);
  }
  assert.deepEqual(validateMemo('xrp', '4294967296'), rejected('destination tag exceeds 4294967295'));
  assert.deepEqual(validateMemo('xrp', '99999999999'), rejected('destination tag exceeds 4294967295'));
  assert.deepEqual(validateMemo('xrp', '9'.repeat(10_000)), rejected('destination tag exceeds 4294967295'));
  assert.deepEqual(validateMemo('xrp', ''), rejected('destination tag is empty'));
});

test('stellar memo: text up to 28 UTF-8 bytes, which also covers memo ids', () => {
  assert.deepEqual(validateMemo('stellar', 'invoice 42'), { ok: true });
  assert.deepEqual(validateMemo('stellar', '18446744073709551615'), { ok: true }); // max uint64 id
  assert.deepEqual(validateMemo('stellar', 'a'.repeat(28)), { ok: true });
  assert.deepEqual(validateMemo('stellar', 'a'.repeat(29)), rejected('memo exceeds 28 bytes'));
  // Counted in bytes, not characters: 14 two-byte letters fit, 15 do not.
  assert.deepEqual(validateMemo('stellar', 'é'.repeat(14)), { ok: true });
  assert.deepEqual(validateMemo('stellar', 'é'.repeat(15)), rejected('memo exceeds 28 bytes'));
  assert.deepEqual(validateMemo('stellar', '🚀'.repeat(7)), { ok: true }); // 4 bytes each
  assert.deepEqual(validateMemo('stellar', '🚀'.repeat(8)), rejected('memo exceeds 28 bytes'));
  assert.deepEqual(validateMemo('stellar', 'x\uD800'), rejected('memo is not valid Unicode text'));
  assert.deepEqual(validateMemo('stellar', ''), rejected('memo is empty'));
});

test('ton comment: printable text up to 120 UTF-8 bytes', () => {
  assert.deepEqual(validateMemo('ton', 'deposit #77 for order ABC'), { ok: true });
  assert.deepEqual(validateMemo('ton', 'привет, мир 🚀'), { ok: true });
  assert.deepEqual(validateMemo('ton', 'a'.repeat(120)), { ok: true });
  assert.deepEqual(validateMemo('ton', 'a'.repeat(121)), rejected('memo exceeds 120 bytes'));
  assert.deepEqual(validateMemo('ton', 'ж'.repeat(61)), rejected('memo exceeds 120 bytes'));
  for (const memo of ['line\nbreak', 'tab\there', 'nul\u0000', 'del\u007f', 'sep\u2028']) {
    assert.deepEqual(validateMemo('ton', memo), rejected('memo contains non-printable characters'), JSON.stringify(memo));
  }
  assert.deepEqual(validateMemo('ton', '\uDC00'), rejected('memo is not valid Unicode text'));
  assert.deepEqual(validateMemo('ton', ''), rejected('memo is empty'));
});

test('networks without a memo reject any memo', () => {
  const withoutMemo = ADDRESS_FORMATS.filter((format) => !['xrp', 'stellar', 'ton'].includes(format));
  assert.deepEqual(withoutMemo, ['bitcoin', 'litecoin', 'dogecoin', 'evm', 'tron', 'solana']);
  for (const format of withoutMemo) {
    for (const memo of ['123', 'hello', '']) {
      assert.deepEqual(validateMemo(format, memo), rejected('network does not use a memo'), `${format} ${memo}`);
    }
  }
});

test('non-string memos from untyped callers are rejected, not thrown on', () => {
  for (const memo of [undefined, null, 42, {}] as unknown[]) {
    assert.deepEqual(validateMemo('xrp', memo as string), rejected('memo must be a string'));
  }
});
