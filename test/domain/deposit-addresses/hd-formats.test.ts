import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADDRESS_FORMATS } from '../../../src/domain/address-format.js';
import { HD_ACCOUNT_PATHS, isHdFormat } from '../../../src/domain/deposit-addresses/index.js';

void describe('isHdFormat', () => {
  void it('selects exactly the secp256k1 formats', () => {
    assert.deepEqual(ADDRESS_FORMATS.filter(isHdFormat), ['bitcoin', 'litecoin', 'dogecoin', 'evm', 'tron']);
  });

  void it('every HD format has a hardened three-level account path', () => {
    for (const path of Object.values(HD_ACCOUNT_PATHS)) assert.match(path, /^m(\/\d+'){3}$/);
  });
});
