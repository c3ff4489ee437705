import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  HD_ACCOUNT_PATHS,
  HD_FORMATS,
  deriveDepositAddress,
  parseAccountXpub,
} from '../../../src/domain/deposit-addresses/index.js';
import { p2pkhAddress, p2wpkhAddress, toChecksumAddress, evmAccountId, tronAddress } from '../../../src/domain/deposit-addresses/address-encoding.js';
import { DGUB, LTUB, XPUB, ZPUB } from '../../../src/domain/deposit-addresses/extended-key-versions.js';
import type { KeyVersion } from '../../../src/domain/deposit-addresses/extended-key-versions.js';
import { abandonKeyAt } from './abandon-wallet.js';

/** What an operator would paste: the neutered account key of the abandon wallet. */
function accountXpub(path: string, version: KeyVersion): string {
  return abandonKeyAt(path, { public: version.public, private: version.private }).publicExtendedKey;
}

void describe('deriveDepositAddress — published vectors for the "abandon … about" mnemonic', () => {
  void it('bitcoin: BIP-84 account zpub gives the BIP-84 receive addresses', () => {
    // bitcoin/bips bip-0084.mediawiki, "Test vectors".
    const account = parseAccountXpub(
      'bitcoin',
      'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs',
    );
    assert.equal(deriveDepositAddress('bitcoin', account, 0), 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    assert.equal(deriveDepositAddress('bitcoin', account, 1), 'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g');
  });

  void it('bitcoin: the BIP-84 zpub is what the account path of the mnemonic exports', () => {
    assert.equal(
      accountXpub(HD_ACCOUNT_PATHS.bitcoin, ZPUB),
      'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs',
    );
  });

  void it("evm: m/44'/60'/0'/0/0 is MetaMask's well-known first account, EIP-55 checksummed", () => {
    const account = parseAccountXpub('evm', accountXpub(HD_ACCOUNT_PATHS.evm, XPUB));
    assert.equal(deriveDepositAddress('evm', account, 0), '0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
  });

  void it("tron: m/44'/195'/0'/0/0 matches TronLink / Ledger Tron app / Trust Wallet Core", () => {
    const account = parseAccountXpub('tron', accountXpub(HD_ACCOUNT_PATHS.tron, XPUB));
    assert.equal(deriveDepositAddress('tron', account, 0), 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH');
  });

  void it("litecoin: m/84'/2'/0'/0/{0,1} from a zpub and from an Ltub", () => {
    // Published by Trust Wallet Core tests and several independent wallet test suites.
    const expected = ['ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh', 'ltc1qwlezpr3890hcp6vva9twqh27mr6edadreqvhnn'];
    for (const version of [ZPUB, LTUB]) {
      const account = parseAccountXpub('litecoin', accountXpub(HD_ACCOUNT_PATHS.litecoin, version));
      assert.deepEqual([0, 1].map((i) => deriveDepositAddress('litecoin', account, i)), expected, version.name);
    }
  });

  void it("dogecoin: m/44'/3'/0'/0/0 from a dgub and from an xpub", () => {
    // Ledger Live's "abandon seed" address list.
    for (const version of [DGUB, XPUB]) {
      const account = parseAccountXpub('dogecoin', accountXpub(HD_ACCOUNT_PATHS.dogecoin, version));
      assert.equal(deriveDepositAddress('dogecoin', account, 0), 'DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC', version.name);
    }
  });
});

void describe('deriveDepositAddress — watch-only derivation equals full private derivation', () => {
  // Independent of published vectors: the address derived publicly from the account xpub must be
  // the address of the private key at the full path, i.e. one the operator can actually spend.
  const encode = {
    bitcoin: (pub: Uint8Array) => p2wpkhAddress('bc', pub),
    litecoin: (pub: Uint8Array) => p2wpkhAddress('ltc', pub),
    dogecoin: (pub: Uint8Array) => p2pkhAddress(0x1e, pub),
    evm: (pub: Uint8Array) => toChecksumAddress(evmAccountId(pub)),
    tron: (pub: Uint8Array) => tronAddress(evmAccountId(pub)),
  };
  for (const format of HD_FORMATS) {
    void it(format, () => {
      const account = parseAccountXpub(format, accountXpub(HD_ACCOUNT_PATHS[format], XPUB));
      for (const index of [0, 7, 2_147_483_647]) {
        const full = abandonKeyAt(`${HD_ACCOUNT_PATHS[format]}/0/${index}`);
        assert.ok(full.privateKey, 'full-path key is private');
        assert.equal(deriveDepositAddress(format, account, index), encode[format](full.publicKey!));
      }
    });
  }

  void it('equals @scure/bip32\'s own public derivation over random indexes (both parities of y)', () => {
    // The child key is encoded here from one affine conversion (derive-deposit-address.ts);
    // @scure/bip32 derives the same child from the same xpub with noble's own encoder.
    fc.assert(
      fc.property(fc.constantFrom(...HD_FORMATS), fc.integer({ min: 0, max: 2_147_483_647 }), (format, index) => {
        const account = parseAccountXpub(format, accountXpub(HD_ACCOUNT_PATHS[format], XPUB));
        const reference = account.deriveChild(0).deriveChild(index).publicKey!;
        assert.equal(deriveDepositAddress(format, account, index), encode[format](reference));
      }),
      { numRuns: 200 },
    );
  });

  void it('derived addresses carry each network prefix and differ per index', () => {
    const prefixes = { bitcoin: /^bc1q/, litecoin: /^ltc1q/, dogecoin: /^D/, evm: /^0x[0-9a-fA-F]{40}$/, tron: /^T/ };
    for (const format of HD_FORMATS) {
      const account = parseAccountXpub(format, accountXpub(HD_ACCOUNT_PATHS[format], XPUB));
      const addresses = [0, 1, 2].map((i) => deriveDepositAddress(format, account, i));
      for (const address of addresses) assert.match(address, prefixes[format]);
      assert.equal(new Set(addresses).size, 3);
    }
  });
});

void describe('deriveDepositAddress — index bounds', () => {
  const account = parseAccountXpub('evm', accountXpub(HD_ACCOUNT_PATHS.evm, XPUB));
  for (const index of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, 2 ** 32]) {
    void it(`refuses ${index}`, () => {
      assert.throws(() => deriveDepositAddress('evm', account, index), RangeError);
    });
  }
});
