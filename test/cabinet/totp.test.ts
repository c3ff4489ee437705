import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { base32nopad } from '@scure/base';
import { matchTotp, totpCode, totpStep, totpUri } from '../../src/domain/totp.js';

// RFC 6238 appendix B: the SHA-1 seed "12345678901234567890", 8-digit codes; the last 6 digits
// are the 6-digit code of the same step.
const RFC_SECRET = base32nopad.encode(new TextEncoder().encode('12345678901234567890'));
const RFC_VECTORS: Array<[number, string]> = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
];

describe('TOTP (RFC 6238)', () => {
  it('matches the RFC test vectors', () => {
    for (const [seconds, code] of RFC_VECTORS) {
      assert.equal(totpCode(RFC_SECRET, totpStep(new Date(seconds * 1000))), code.slice(-6), `t=${seconds}`);
    }
  });

  it('accepts a code once, within one step of drift', () => {
    const at = new Date(1_234_567_890_000);
    const step = totpStep(at);
    const code = totpCode(RFC_SECRET, step);
    assert.equal(matchTotp(RFC_SECRET, code, at, null), step);
    assert.equal(matchTotp(RFC_SECRET, code, at, step), undefined, 'the same code again is refused');
    assert.equal(matchTotp(RFC_SECRET, totpCode(RFC_SECRET, step - 1), at, null), step - 1);
    assert.equal(matchTotp(RFC_SECRET, totpCode(RFC_SECRET, step - 2), at, null), undefined);
    assert.equal(matchTotp(RFC_SECRET, '12345', at, null), undefined);
    assert.equal(matchTotp(RFC_SECRET, code.slice(0, 3) + ' ' + code.slice(3), at, null), step, 'spaces are ignored');
  });

  it('writes the otpauth URI an authenticator reads', () => {
    const uri = new URL(totpUri(RFC_SECRET, 'Exchange cabinet', 'a@b.example'));
    assert.equal(uri.protocol, 'otpauth:');
    assert.equal(uri.searchParams.get('secret'), RFC_SECRET);
    assert.equal(uri.searchParams.get('digits'), '6');
    assert.match(decodeURIComponent(uri.pathname), /Exchange cabinet:a@b\.example$/);
  });
});
