import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sha256 } from '@noble/hashes/sha2.js';
import { base32nopad, base58, base58xrp, base64, base64url, bech32, bech32m, createBase58check } from '@scure/base';
import fc from 'fast-check';
import { ADDRESS_FORMATS, type AddressFormat } from '../../../src/domain/address-format.js';
import { ADDRESS_PATTERNS } from '../../../src/domain/addresses/address-patterns.js';
import { crc16Xmodem } from '../../../src/domain/addresses/crc16-xmodem.js';
import { validateAddress } from '../../../src/domain/addresses/index.js';
import { VALID_VECTORS } from './valid-vectors.js';

/**
 * The Currency's address_regex (docs/contract.md §10.7) must accept every address the server accepts for
 * that format: the validators' test vectors, and valid addresses made from random bytes (every
 * version byte, witness version and program length, both cases and alphabets, and the extreme
 * all-zero and all-0xff payloads that give the shortest and longest spellings).
 */

const pattern = (format: AddressFormat): RegExp => new RegExp(ADDRESS_PATTERNS[format]);

function assertAccepted(format: AddressFormat, address: string): void {
  assert.deepEqual(validateAddress(format, address), { ok: true }, `${format} generator made an address the server refuses: ${address}`);
  assert.match(address, pattern(format), `${format} address_regex refuses a valid address: ${address}`);
}

test('every format has a pattern that compiles', () => {
  for (const format of ADDRESS_FORMATS) assert.doesNotThrow(() => pattern(format), format);
});

test("each format's valid test vectors match its address_regex", () => {
  for (const format of ADDRESS_FORMATS) {
    assert.ok(VALID_VECTORS[format].length > 0, format);
    for (const address of VALID_VECTORS[format]) assertAccepted(format, address);
  }
});

test('the patterns still refuse the obvious wrong formats (a pre-check, not a pass for anything)', () => {
  assert.doesNotMatch('0x52908400098527886E0F7030069857D2E4169EE7', pattern('bitcoin'));
  assert.doesNotMatch('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', pattern('litecoin'));
  assert.doesNotMatch('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', pattern('evm'));
  assert.doesNotMatch(' 1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', pattern('bitcoin'));
  assert.doesNotMatch('GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ\n', pattern('stellar'));
  assert.doesNotMatch('bC1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', pattern('bitcoin'));
});

const bytes = (length: number) =>
  fc.oneof(
    fc.uint8Array({ minLength: length, maxLength: length }),
    fc.constant(new Uint8Array(length)),
    fc.constant(new Uint8Array(length).fill(0xff)),
  );
const base58check = createBase58check(sha256);
/** Base58check in the XRP alphabet: payload and the first 4 bytes of its double SHA-256. */
const base58checkXrp = {
  encode: (payload: Uint8Array): string => base58xrp.encode(Uint8Array.from([...payload, ...sha256(sha256(payload)).subarray(0, 4)])),
};

const VERSIONS: Partial<Record<AddressFormat, readonly number[]>> = {
  bitcoin: [0x00, 0x05],
  litecoin: [0x30, 0x32, 0x05],
  dogecoin: [0x1e, 0x16],
  tron: [0x41],
};

test('generated base58check addresses (every mainnet version byte) match', () => {
  for (const [format, versions] of Object.entries(VERSIONS) as [AddressFormat, readonly number[]][]) {
    fc.assert(
      fc.property(fc.constantFrom(...versions), bytes(20), (version, hash) => {
        assertAccepted(format, base58check.encode(Uint8Array.from([version, ...hash])));
      }),
      { numRuns: 300 },
    );
  }
  fc.assert(
    fc.property(bytes(20), (accountId) => assertAccepted('xrp', base58checkXrp.encode(Uint8Array.from([0x00, ...accountId])))),
    { numRuns: 300 },
  );
});

test('generated SegWit addresses (v0 20/32 bytes, v1 32, v2..v16 2..40; either case) match', () => {
  const program = fc.oneof(
    fc.record({ version: fc.constant(0), program: fc.oneof(bytes(20), bytes(32)) }),
    fc.record({ version: fc.constant(1), program: bytes(32) }),
    fc.record({ version: fc.integer({ min: 2, max: 16 }), program: fc.integer({ min: 2, max: 40 }).chain((n) => bytes(n)) }),
  );
  for (const [format, hrp] of [['bitcoin', 'bc'], ['litecoin', 'ltc']] as const) {
    fc.assert(
      fc.property(program, fc.boolean(), ({ version, program: data }, upper) => {
        const coder = version === 0 ? bech32 : bech32m;
        const address = coder.encode(hrp, [version, ...coder.toWords(data)], 90);
        assertAccepted(format, upper ? address.toUpperCase() : address);
      }),
      { numRuns: 300 },
    );
  }
});

test('generated EVM, Solana, Stellar and TON addresses match', () => {
  fc.assert(
    fc.property(bytes(20), fc.boolean(), (account, upper) => {
      const hex = Buffer.from(account).toString('hex');
      assertAccepted('evm', `0x${upper ? hex.toUpperCase() : hex}`);
    }),
    { numRuns: 200 },
  );
  fc.assert(fc.property(bytes(32), (key) => assertAccepted('solana', base58.encode(key))), { numRuns: 300 });
  fc.assert(
    fc.property(bytes(32), (key) => {
      const body = Uint8Array.from([6 << 3, ...key]);
      const crc = crc16Xmodem(body);
      assertAccepted('stellar', base32nopad.encode(Uint8Array.from([...body, crc & 0xff, crc >> 8])));
    }),
    { numRuns: 200 },
  );
  fc.assert(
    fc.property(fc.constantFrom(0x11, 0x51), fc.constantFrom(0x00, 0xff), bytes(32), fc.boolean(), (tag, workchain, hash, urlSafe) => {
      const head = Uint8Array.from([tag, workchain, ...hash]);
      const crc = crc16Xmodem(head);
      const full = Uint8Array.from([...head, crc >> 8, crc & 0xff]);
      assertAccepted('ton', (urlSafe ? base64url : base64).encode(full));
      const raw = `${workchain === 0 ? '0' : '-1'}:${Buffer.from(hash).toString('hex')}`;
      assertAccepted('ton', urlSafe ? raw : raw.toUpperCase());
    }),
    { numRuns: 200 },
  );
});
