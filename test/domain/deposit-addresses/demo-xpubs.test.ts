import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  HD_FORMATS,
  createDemoXpubs,
  deriveDepositAddress,
  parseAccountXpub,
} from '../../../src/domain/deposit-addresses/index.js';

void describe('createDemoXpubs', () => {
  const xpubs = createDemoXpubs();

  void it('returns exactly one public account key per HD format, each in its preferred encoding', () => {
    assert.deepEqual(Object.keys(xpubs).sort(), [...HD_FORMATS].sort());
    assert.match(xpubs.bitcoin, /^zpub/);
    assert.match(xpubs.litecoin, /^zpub/);
    assert.match(xpubs.dogecoin, /^dgub/);
    assert.match(xpubs.evm, /^xpub/);
    assert.match(xpubs.tron, /^xpub/);
  });

  void it('keys parse as watch-only account keys and derive addresses with the right prefixes', () => {
    const prefixes = { bitcoin: /^bc1q/, litecoin: /^ltc1q/, dogecoin: /^D/, evm: /^0x[0-9a-fA-F]{40}$/, tron: /^T/ };
    for (const format of HD_FORMATS) {
      const account = parseAccountXpub(format, xpubs[format]);
      assert.equal(account.privateKey, null);
      assert.equal(account.depth, 3, format);
      assert.match(deriveDepositAddress(format, account, 0), prefixes[format]);
    }
  });

  void it('evm and tron keys come from different account paths', () => {
    assert.notEqual(xpubs.evm, xpubs.tron);
  });

  void it('two calls create two different wallets', () => {
    const other = createDemoXpubs();
    for (const format of HD_FORMATS) assert.notEqual(other[format], xpubs[format], format);
  });
});
