import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import { toChecksumAddress, tronAddress } from '../../../src/domain/deposit-addresses/address-encoding.js';

void describe('toChecksumAddress (EIP-55)', () => {
  // The examples listed in the EIP-55 specification.
  for (const expected of [
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
    '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
  ]) {
    void it(expected, () => {
      assert.equal(toChecksumAddress(hexToBytes(expected.slice(2).toLowerCase())), expected);
    });
  }

  void it('refuses an id that is not 20 bytes', () => {
    assert.throws(() => toChecksumAddress(new Uint8Array(19)), RangeError);
  });
});

void describe('tronAddress', () => {
  void it('is base58check(0x41 || the same 20 bytes as the EVM address)', () => {
    // The abandon mnemonic's ETH (m/44'/60'/0'/0/0) account id, re-encoded the TRON way; decoding
    // gives the id back behind TRON's 0x41 mainnet prefix.
    const id = hexToBytes('9858effd232b4033e47d90003d41ec34ecaeda94');
    const address = tronAddress(id);
    assert.match(address, /^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    assert.deepEqual(createBase58check(sha256).decode(address), Uint8Array.of(0x41, ...id));
  });
});
