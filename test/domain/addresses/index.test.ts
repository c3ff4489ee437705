import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ADDRESS_FORMATS, type AddressFormat } from '../../../src/domain/address-format.js';
import { validateAddress } from '../../../src/domain/addresses/index.js';
import { validateBitcoinAddress } from '../../../src/domain/addresses/bitcoin.js';
import { validateDogecoinAddress } from '../../../src/domain/addresses/dogecoin.js';
import { validateEvmAddress } from '../../../src/domain/addresses/evm.js';
import { validateLitecoinAddress } from '../../../src/domain/addresses/litecoin.js';
import { validateSolanaAddress } from '../../../src/domain/addresses/solana.js';
import { validateStellarAddress } from '../../../src/domain/addresses/stellar.js';
import { validateTonAddress } from '../../../src/domain/addresses/ton.js';
import { validateTronAddress } from '../../../src/domain/addresses/tron.js';
import { validateXrpAddress } from '../../../src/domain/addresses/xrp.js';
import { grapheme } from '../../helpers/text-arbitraries.js';

const rejected = (reason: string) => ({ ok: false, reason });

// One known-good address per format, to check dispatch and the whitespace rule.
const SAMPLE: Record<AddressFormat, string> = {
  bitcoin: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
  litecoin: 'ltc1qxtm55gultqzhqzl2p3ks50hg2478y3hehuj6dz',
  dogecoin: 'DDWUYQ3GfMDj8hkx8cbnAMYkTzzAunAQxg',
  evm: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  tron: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
  solana: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  xrp: 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh',
  stellar: 'GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ',
  ton: 'EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N',
};

test('dispatches each format to its own rules', () => {
  for (const format of ADDRESS_FORMATS) {
    assert.deepEqual(validateAddress(format, SAMPLE[format]), { ok: true }, format);
    // Every other network's sample is invalid here: no two formats overlap on these examples.
    for (const other of ADDRESS_FORMATS.filter((candidate) => candidate !== format)) {
      assert.equal(validateAddress(format, SAMPLE[other]).ok, false, `${other} sample accepted as ${format}`);
    }
  }
});

test('junk input gets a reason for every format', () => {
  const cases: [string, string][] = [
    ['', 'address is empty'],
    [' ', 'address contains whitespace'],
    ['\t\n', 'address contains whitespace'],
    ['bc1 q', 'address contains whitespace'],
    ['\u00a0', 'address contains whitespace'],
    ['адрес', 'address contains characters outside printable ASCII'],
    ['🚀', 'address contains characters outside printable ASCII'],
    ['abc\u200bdef', 'address contains characters outside printable ASCII'],
    ['a\u0000b', 'address contains characters outside printable ASCII'],
    ['A'.repeat(10_000), 'wrong length'],
  ];
  for (const format of ADDRESS_FORMATS) {
    for (const [input, reason] of cases) {
      assert.deepEqual(validateAddress(format, input), rejected(reason), `${format} ${JSON.stringify(input.slice(0, 12))}`);
    }
  }
});

test('leading or trailing whitespace is not trimmed away', () => {
  for (const format of ADDRESS_FORMATS) {
    for (const padded of [` ${SAMPLE[format]}`, `${SAMPLE[format]} `, `${SAMPLE[format]}\n`, `\u200b${SAMPLE[format]}`]) {
      assert.equal(validateAddress(format, padded).ok, false, `${format} ${JSON.stringify(padded)}`);
    }
  }
});

test('look-alike unicode (Cyrillic "ԁ" in place of Latin "d") is rejected', () => {
  const spoofed = SAMPLE.solana.replace('d', '\u0501'); // Cyrillic komi "ԁ"
  assert.deepEqual(validateAddress('solana', spoofed), rejected('address contains characters outside printable ASCII'));
});

test('untyped callers: unknown formats and non-string addresses are rejected, not thrown on', () => {
  assert.deepEqual(validateAddress('monero' as AddressFormat, SAMPLE.bitcoin), rejected('unknown address format'));
  assert.deepEqual(validateAddress('constructor' as AddressFormat, SAMPLE.bitcoin), rejected('unknown address format'));
  for (const address of [undefined, null, 42, {}, ['bc1']] as unknown[]) {
    assert.deepEqual(validateAddress('bitcoin', address as string), rejected('address must be a string'));
  }
});

test('the per-network validators never throw on arbitrary strings (without the index catch)', () => {
  const validators = [
    validateBitcoinAddress,
    validateLitecoinAddress,
    validateDogecoinAddress,
    validateEvmAddress,
    validateTronAddress,
    validateSolanaAddress,
    validateXrpAddress,
    validateStellarAddress,
    validateTonAddress,
  ];
  // Mix random unicode with strings built from the characters real addresses use, so inputs
  // get past the ASCII screen and into the decoders.
  const addressLike = fc.string({
    unit: fc.constantFrom(...'0123456789abcdefABCDEFxXqpzry9gtvwsjnkhmualQRSTUVWYZ_-+/=:1GMTrbcLN'.split('')),
    maxLength: 120,
  });
  const prefixed = fc.tuple(fc.constantFrom('bc1', 'ltc1', 'tb1', '0x', 'T', 'r', 'X', 'G', 'M', 'EQ', '0:', '-1:'), addressLike)
    .map(([prefix, rest]) => prefix + rest);
  fc.assert(
    fc.property(fc.oneof(fc.string({ unit: grapheme, maxLength: 200 }), addressLike, prefixed), (input) => {
      for (const validate of validators) {
        const result = validate(input);
        assert.equal(typeof result.ok, 'boolean');
        if (!result.ok) assert.ok(result.reason.length > 0);
      }
    }),
    { numRuns: 3000 },
  );
});
