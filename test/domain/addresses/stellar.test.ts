import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateAddress } from '../../../src/domain/addresses/index.js';
import { replaceCharAt } from './corrupt.js';

const check = (address: string) => validateAddress('stellar', address);
const rejected = (reason: string) => ({ ok: false, reason });
const MUXED_REASON = 'muxed (M...) accounts are not supported: use the G... account and a memo';

test('accepts account IDs (G...)', () => {
  for (const address of [
    'GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ', // SEP-23 valid vector
    'GAQAA5L65LSYH7CQ3VTJ7F3HHLGCL3DSLAR2Y47263D56MNNGHSQSTVY', // base account of the CAP-27 muxed example
    'GBPXXOA5N4JYPESHAADMQKBPWZWQDQ64ZV6ZL2S3LAGW4SY7NTCMWIVL',
    'GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7', // Stellar docs example
  ]) {
    assert.deepEqual(check(address), { ok: true }, address);
  }
});

test('recognises valid muxed accounts and rejects them with a pointer to G... + memo', () => {
  for (const address of [
    'MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUQ', // SEP-23, id 0
    'MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVAAAAAAAAAAAAAJLK', // SEP-23, id 2^63
    'MAAAAAAAAAAAJURAAB2X52XFQP6FBXLGT6LWOOWMEXWHEWBDVRZ7V5WH34Y22MPFBHUHY', // id 1234
  ]) {
    assert.deepEqual(check(address), rejected(MUXED_REASON), address);
  }
});

test('rejects every SEP-23 invalid vector', () => {
  const cases: [string, string][] = [
    ['GAAAAAAAACGC6', 'wrong length'],
    ['MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUR', 'not a valid base32 string'],
    ['GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZA', 'wrong length'],
    ['GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUACUSI', 'wrong length'],
    ['G47QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVP2I', 'unsupported key algorithm'],
    ['MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVAAAAAAAAAAAAAJLKA', 'wrong length'],
    ['MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVAAAAAAAAAAAAAAV75I', 'wrong length'],
    // SEP-23 lists this one for its algorithm bits, but its CRC does not match either; CRC comes first.
    ['M47QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUQ', 'bad checksum'],
    ['MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUK===', 'wrong length'],
    ['MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUO', 'bad checksum'],
    [
      'PA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAQACAQDAQCQMBYIBEFAWDANBYHRAEISCMKBKFQXDAMRUGY4DUPB6IAAAAAAAAPM',
      'not an account (G...) address',
    ],
    ['BAAD6DBUX6J22DMZOHIEZTEQ64CVCHEDRKWZONFEUL5Q26QD7R76RGR4TV', 'not a valid base32 string'],
    ['BAAT6DBUX6J22DMZOHIEZTEQ64CVCHEDRKWZONFEUL5Q26QD7R76RGXACA', 'not an account (G...) address'],
  ];
  for (const [address, reason] of cases) assert.deepEqual(check(address), rejected(reason), address);
});

test('rejects other valid StrKeys that are not accounts', () => {
  assert.deepEqual(
    check('SBGWKM3CD4IL47QN6X54N6Y33T3JDNVI6AIJ6CD5IM47HG3IG4O36XCU'),
    rejected('this is a secret seed, not an address'),
  );
  // SEP-23 valid contract and liquidity-pool vectors.
  assert.deepEqual(check('CA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUWDA'), rejected('not an account (G...) address'));
  assert.deepEqual(check('LA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUPJN'), rejected('not an account (G...) address'));
});

test('one changed character breaks the checksum; lowercase is not StrKey', () => {
  const account = 'GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ';
  assert.deepEqual(check(replaceCharAt(account, 10, 'B')), rejected('bad checksum'));
  assert.deepEqual(check(replaceCharAt(account, -1, 'A')), rejected('bad checksum'));
  assert.deepEqual(check(account.toLowerCase()), rejected('not a valid base32 string'));
  assert.deepEqual(check(replaceCharAt(account, 10, '1')), rejected('not a valid base32 string'));
});
