import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nodeNetworkAddress } from '../../src/chains/nodes/node-network-address.js';
import { validateAddress } from '../../src/domain/addresses/index.js';

/** BIP-173 vectors: the same witness program on mainnet and testnet. */
const BTC_MAIN = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
const BTC_TEST = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';

describe('nodeNetworkAddress: a mainnet deposit address spelled for the node network', () => {
  it('is the address itself on mainnet', () => {
    assert.equal(nodeNetworkAddress('BTC', 'main', BTC_MAIN), BTC_MAIN);
    assert.equal(nodeNetworkAddress('LTC', 'main', 'ltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kgmn4n9'), 'ltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kgmn4n9');
  });

  it('re-encodes the witness program with the network hrp (bech32 v0)', () => {
    assert.equal(nodeNetworkAddress('BTC', 'test', BTC_MAIN), BTC_TEST);
    assert.equal(nodeNetworkAddress('BTC', 'regtest', BTC_MAIN), 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080');
    // Litecoin Core regtest reported this address for the same program (checked against litecoind 0.21).
    assert.equal(nodeNetworkAddress('LTC', 'regtest', 'ltc1q9qsv3acyg7wsea8sqm6hae4pr2vsmljdvutn6u'), 'rltc1q9qsv3acyg7wsea8sqm6hae4pr2vsmljd7zfqeg');
    assert.equal(nodeNetworkAddress('LTC', 'test', 'ltc1q9qsv3acyg7wsea8sqm6hae4pr2vsmljdvutn6u').slice(0, 6), 'tltc1q');
  });

  it('keeps bech32m for witness v1 (taproot)', () => {
    // BIP-350 valid vectors: the same program under bc and tb.
    const main = 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0';
    const test = 'tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47zagq';
    assert.equal(nodeNetworkAddress('BTC', 'signet', main), test);
  });

  it('swaps the base58 version byte of P2PKH and P2SH', () => {
    // Genesis coinbase key hash: 1A1z… on mainnet is mpXw… on testnet/regtest.
    assert.equal(nodeNetworkAddress('BTC', 'regtest', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'), 'mpXwg4jMtRhuSpVq4xS3HFHmCmWp9NyGKt');
    // Dogecoin: D… mainnet P2PKH; testnet uses 0x71 (n…), regtest 0x6f (m…/n…).
    const doge = 'DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L';
    assert.ok(validateAddress('dogecoin', doge).ok);
    assert.match(nodeNetworkAddress('DOGE', 'test', doge), /^n/);
    assert.match(nodeNetworkAddress('DOGE', 'regtest', doge), /^[mn]/);
    assert.notEqual(nodeNetworkAddress('DOGE', 'test', doge), nodeNetworkAddress('DOGE', 'regtest', doge));
    // P2SH 3… becomes 2… (version 0xc4).
    assert.match(nodeNetworkAddress('BTC', 'regtest', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy'), /^2/);
  });

  it('refuses what is not a mainnet address of the chain, and unknown networks', () => {
    assert.throws(() => nodeNetworkAddress('BTC', 'regtest', BTC_TEST), /mainnet/);
    assert.throws(() => nodeNetworkAddress('LTC', 'regtest', BTC_MAIN), /not a LTC mainnet/);
    assert.throws(() => nodeNetworkAddress('BTC', 'regtest', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5'), /not a valid SegWit/);
    assert.throws(() => nodeNetworkAddress('DOGE', 'regtest', BTC_MAIN), /not a DOGE mainnet/);
    assert.throws(() => nodeNetworkAddress('BTC', 'moonnet', BTC_MAIN), /no address prefixes/);
    assert.throws(() => nodeNetworkAddress('XRP', 'main', BTC_MAIN), /no address prefixes/);
  });
});
