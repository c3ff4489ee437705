import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HDKey } from '@scure/bip32';
import { createBase58check, hex } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import {
  ExtendedKeyError,
  HD_ACCOUNT_PATHS,
  deriveDepositAddress,
  parseAccountXpub,
} from '../../../src/domain/deposit-addresses/index.js';
import { MTUB, TPUB, XPUB, YPUB, ZPUB } from '../../../src/domain/deposit-addresses/extended-key-versions.js';
import type { KeyVersion } from '../../../src/domain/deposit-addresses/extended-key-versions.js';
import { abandonKeyAt } from './abandon-wallet.js';

const base58check = createBase58check(sha256);

// BIP-32 test vector 1 (seed 000102030405060708090a0b0c0d0e0f), bitcoin/bips bip-0032.mediawiki.
const V1_M_0H_1_2H_XPUB =
  'xpub6D4BDPcP2GT577Vvch3R8wDkScZWzQzMMUm3PWbmWvVJrZwQY4VUNgqFJPMM3No2dFDFGTsxxpG5uJh7n7epu4trkrX7x7DogT5Uv6fcLW5';
const V1_M_0H_1_2H_2_XPUB =
  'xpub6FHa3pjLCk84BayeJxFW2SP4XRrFd1JYnxeLeU8EqN3vDfZmbqBqaGJAyiLjTAwm6ZLRQUMv1ZACTj37sR62cfN7fe5JnJ7dh8zL4fiyLHV';
const V1_M_0H_1_2H_2_1000000000_XPUB =
  'xpub6H1LXWLaKsWFhvm6RVpEL9P4KfRZSW7abD2ttkWP3SSQvnyA8FSVqNTEcYFgJS2UaFcxupHiYkro49S8yGasTvXEYBVPamhGW6cFJodrTHy';
// Its private key at the same path, derived here rather than written out: a test vector, but an
// xprv in the tree is indistinguishable from a leaked key to anyone scanning it.
const V1_M_0H_1_2H_XPRV = (() => {
  const key = HDKey.fromMasterSeed(hex.decode('000102030405060708090a0b0c0d0e0f')).derive("m/0'/1/2'");
  assert.equal(key.publicExtendedKey, V1_M_0H_1_2H_XPUB);
  return key.privateExtendedKey;
})();
// BIP-84 test vector account key.
const BIP84_ZPUB =
  'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';

/** Same key, other SLIP-132 label: swap the 4 version bytes and re-checksum. */
function relabel(extendedKey: string, version: number): string {
  const bytes = base58check.decode(extendedKey);
  new DataView(bytes.buffer, bytes.byteOffset, 4).setUint32(0, version, false);
  return base58check.encode(bytes);
}

function versionsOf(v: KeyVersion) {
  return { public: v.public, private: v.private };
}

void describe('parseAccountXpub — BIP-32 test vector 1', () => {
  void it('public derivation from the published m/0H/1/2H xpub reproduces its unhardened children', () => {
    const key = parseAccountXpub('evm', V1_M_0H_1_2H_XPUB);
    assert.equal(key.privateKey, null);
    assert.equal(key.publicExtendedKey, V1_M_0H_1_2H_XPUB);
    const child = key.deriveChild(2);
    assert.equal(child.publicExtendedKey, V1_M_0H_1_2H_2_XPUB);
    assert.equal(child.deriveChild(1_000_000_000).publicExtendedKey, V1_M_0H_1_2H_2_1000000000_XPUB);
  });

  void it('a watch-only key cannot take a hardened step', () => {
    const key = parseAccountXpub('evm', V1_M_0H_1_2H_XPUB);
    assert.throws(() => key.deriveChild(0x80000000));
  });
});

void describe('parseAccountXpub — accepted encodings', () => {
  void it('the BIP-84 zpub relabelled as xpub yields the same bitcoin addresses', () => {
    const asXpub = relabel(BIP84_ZPUB, XPUB.public);
    assert.match(asXpub, /^xpub/);
    const fromXpub = parseAccountXpub('bitcoin', asXpub);
    assert.equal(deriveDepositAddress('bitcoin', fromXpub, 0), 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
  });

  void it('tolerates surrounding whitespace from copy-paste', () => {
    const key = parseAccountXpub('bitcoin', `  ${BIP84_ZPUB}\n`);
    assert.equal(key.publicExtendedKey, BIP84_ZPUB);
  });
});

void describe('parseAccountXpub — refusals', () => {
  void it('refuses the BIP-32 vector xprv as a private key, without echoing it', () => {
    assert.throws(
      () => parseAccountXpub('evm', V1_M_0H_1_2H_XPRV),
      (error: unknown) =>
        error instanceof ExtendedKeyError && /PRIVATE/.test(error.message) && !error.message.includes('xprv9z4pot'),
    );
  });

  void it('refuses zprv / Ltpv / dgpv style private keys for every format', () => {
    const zprv = abandonKeyAt(HD_ACCOUNT_PATHS.bitcoin, versionsOf(ZPUB)).privateExtendedKey;
    assert.match(zprv, /^zprv/);
    assert.throws(() => parseAccountXpub('bitcoin', zprv), /PRIVATE/);
    for (const format of ['litecoin', 'dogecoin', 'evm', 'tron'] as const) {
      assert.throws(() => parseAccountXpub(format, zprv), /PRIVATE/, format);
    }
  });

  void it('refuses a private key hidden behind public version bytes', () => {
    const xprv = abandonKeyAt(HD_ACCOUNT_PATHS.evm).privateExtendedKey;
    const disguised = relabel(xprv, XPUB.public);
    assert.match(disguised, /^xpub/);
    assert.throws(() => parseAccountXpub('evm', disguised), /PRIVATE/);
  });

  void it('refuses wrapped-segwit labels (ypub, Mtub), whose wallets would not see native-segwit deposits', () => {
    const ypub = relabel(BIP84_ZPUB, YPUB.public);
    assert.throws(() => parseAccountXpub('bitcoin', ypub), (e: unknown) => e instanceof ExtendedKeyError && /ypub/.test(e.message));
    const mtub = relabel(BIP84_ZPUB, MTUB.public);
    assert.throws(() => parseAccountXpub('litecoin', mtub), /Mtub/);
  });

  void it('refuses testnet keys and labels of another coin', () => {
    assert.throws(() => parseAccountXpub('bitcoin', relabel(BIP84_ZPUB, TPUB.public)), /tpub/);
    assert.throws(() => parseAccountXpub('evm', BIP84_ZPUB), /Key version zpub is not accepted for evm/);
    assert.throws(() => parseAccountXpub('bitcoin', relabel(BIP84_ZPUB, 0x01020304)), /unknown \(0x01020304\)/);
  });

  void it('refuses garbage, a broken checksum and a wrong length', () => {
    for (const input of ['', 'not a key', 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu']) {
      assert.throws(() => parseAccountXpub('bitcoin', input), ExtendedKeyError, input);
    }
    const typo = BIP84_ZPUB.slice(0, -1) + (BIP84_ZPUB.endsWith('s') ? 't' : 's');
    assert.throws(() => parseAccountXpub('bitcoin', typo), /base58check/);
    const short = base58check.encode(base58check.decode(BIP84_ZPUB).subarray(0, 77));
    assert.throws(() => parseAccountXpub('bitcoin', short), /expected 78 bytes, got 77/);
  });

  void it('refuses a key whose public key is not on the curve', () => {
    const bytes = base58check.decode(BIP84_ZPUB);
    bytes[45] = 0x02;
    bytes.fill(0xff, 46); // x = 2^256 - 1 exceeds the field prime
    assert.throws(() => parseAccountXpub('bitcoin', base58check.encode(bytes)), ExtendedKeyError);
  });
});
