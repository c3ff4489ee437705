import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateEvmAddress } from '../../src/domain/addresses/evm.js';
import { searchSpellings } from '../../src/domain/order-search.js';

const CHECKSUM = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

describe('searchSpellings (order list search, docs/contract.md §7.2)', () => {
  it('an EVM address in any case: as sent, lower, upper and EIP-55, each one the validator accepts', () => {
    for (const sent of [CHECKSUM, CHECKSUM.toLowerCase(), `0x${CHECKSUM.slice(2).toUpperCase()}`, `0X${CHECKSUM.slice(2)}`]) {
      const spellings = searchSpellings(sent);
      assert.equal(spellings[0], sent);
      assert.deepEqual(
        new Set(spellings.slice(1)),
        new Set([CHECKSUM.toLowerCase(), `0x${CHECKSUM.slice(2).toUpperCase()}`, CHECKSUM].filter((s) => s !== sent)),
      );
    }
    for (const spelling of searchSpellings(CHECKSUM.toLowerCase())) assert.ok(validateEvmAddress(spelling).ok, spelling);
  });

  it('a 64-digit hex hash: as sent, lower and upper case, the 0x prefix kept (in lower case)', () => {
    const hash = 'aB'.repeat(32);
    assert.deepEqual(searchSpellings(hash), [hash, 'ab'.repeat(32), 'AB'.repeat(32)]);
    assert.deepEqual(searchSpellings(`0X${hash}`), [`0X${hash}`, `0x${'ab'.repeat(32)}`, `0x${'AB'.repeat(32)}`]);
    assert.deepEqual(searchSpellings('ab'.repeat(32)), ['ab'.repeat(32), 'AB'.repeat(32)]);
  });

  it('anything else exactly as sent: base58, bech32, near-hex lengths, memo text', () => {
    for (const value of [
      'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
      'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
      'DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L',
      CHECKSUM.slice(0, 41),
      `${CHECKSUM}0`,
      'ab'.repeat(31),
      `0x${'ab'.repeat(33)}`,
      'EX-AB12CD',
    ]) {
      assert.deepEqual(searchSpellings(value), [value], value);
    }
  });
});
