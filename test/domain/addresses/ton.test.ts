import { test } from 'node:test';
import assert from 'node:assert/strict';
import { base64url } from '@scure/base';
import { crc16Xmodem } from '../../../src/domain/addresses/crc16-xmodem.js';
import { validateAddress } from '../../../src/domain/addresses/index.js';
import { replaceCharAt } from './corrupt.js';

const check = (address: string) => validateAddress('ton', address);
const rejected = (reason: string) => ({ ok: false, reason });

// TEP-2's example: the root DNS contract on the masterchain.
const ROOT_DNS_RAW = '-1:e56754f83426f69b09267bd876ac97c44821345b7e266bd956a7bfbfb98df35c';
const ROOT_DNS_BOUNCEABLE = 'Ef_lZ1T4NCb2mwkme9h2rJfESCE0W34ma9lWp7-_uY3zXDvq';
const ROOT_DNS_NON_BOUNCEABLE = 'Uf_lZ1T4NCb2mwkme9h2rJfESCE0W34ma9lWp7-_uY3zXGYv';
// The TON docs' usual example wallet on the basechain, in every spelling.
const WALLET_RAW = '0:83dfd552e63729b472fcbcc8c45ebcc6691702558b68ec7527e1ba403a0f31a8';
const WALLET_BOUNCEABLE = 'EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N';
const WALLET_NON_BOUNCEABLE = 'UQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqEBI';

/** User-friendly form of arbitrary header bytes, with a correct checksum. */
function friendly(tag: number, workchain: number): string {
  const bytes = new Uint8Array(36);
  bytes[0] = tag;
  bytes[1] = workchain;
  bytes.fill(0x5a, 2, 34);
  const crc = crc16Xmodem(bytes.subarray(0, 34));
  bytes[34] = crc >> 8;
  bytes[35] = crc & 0xff;
  return base64url.encode(bytes);
}

test('accepts user-friendly addresses, bounceable and not, basechain and masterchain', () => {
  for (const address of [
    WALLET_BOUNCEABLE,
    WALLET_NON_BOUNCEABLE,
    ROOT_DNS_BOUNCEABLE,
    ROOT_DNS_NON_BOUNCEABLE,
    'Ef8zMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzM0vF', // elector contract, -1:3333...
  ]) {
    assert.deepEqual(check(address), { ok: true }, address);
  }
});

test('accepts the standard base64 alphabet as well as base64url, but not a mix', () => {
  const standard = ROOT_DNS_BOUNCEABLE.replaceAll('_', '/').replaceAll('-', '+');
  assert.deepEqual(check(standard), { ok: true });
  const mixed = ROOT_DNS_BOUNCEABLE.replace('_', '/');
  assert.deepEqual(check(mixed), rejected('mixes base64 and base64url characters'));
});

test('accepts raw addresses on workchains 0 and -1, either hex case', () => {
  assert.deepEqual(check(WALLET_RAW), { ok: true });
  assert.deepEqual(check(ROOT_DNS_RAW), { ok: true });
  assert.deepEqual(check(ROOT_DNS_RAW.toUpperCase()), { ok: true });
});

test('rejects testnet user-friendly addresses', () => {
  // Same wallet with the 0x80 testnet flag: kQ... bounceable, 0Q... non-bounceable.
  assert.deepEqual(check('kQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqKYH'), rejected('testnet address'));
  assert.deepEqual(check('0QCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqPvC'), rejected('testnet address'));
});

test('one changed character breaks the checksum', () => {
  assert.deepEqual(check(replaceCharAt(WALLET_BOUNCEABLE, 10, 'Q')), rejected('bad checksum'));
  assert.deepEqual(check(replaceCharAt(WALLET_NON_BOUNCEABLE, -1, 'J')), rejected('bad checksum'));
  // Swapping only the bounceable tag without recomputing the CRC is also caught.
  assert.deepEqual(check(`U${WALLET_BOUNCEABLE.slice(1)}`), rejected('bad checksum'));
});

test('rejects unknown tags, other workchains and malformed strings', () => {
  assert.deepEqual(check(friendly(0x11, 0x00)), { ok: true }); // the helper itself builds valid ones
  assert.deepEqual(check(friendly(0x22, 0x00)), rejected('unknown address tag'));
  assert.deepEqual(check(friendly(0x11, 0x01)), rejected('unsupported workchain'));
  assert.deepEqual(check(WALLET_BOUNCEABLE.slice(0, -1)), rejected('wrong length'));
  assert.deepEqual(check(`${WALLET_BOUNCEABLE}A`), rejected('wrong length'));
  assert.deepEqual(check(replaceCharAt(WALLET_BOUNCEABLE, 5, '.')), rejected('not a valid base64 string'));
  assert.deepEqual(check(WALLET_RAW.replace('0:', '1:')), rejected('unsupported workchain'));
  assert.deepEqual(check(WALLET_RAW.replace('0:', '-2:')), rejected('unsupported workchain'));
  assert.deepEqual(check(WALLET_RAW.replace('0:', '00:')), rejected('unsupported workchain'));
  assert.deepEqual(check(WALLET_RAW.slice(0, -1)), rejected('wrong length'));
  assert.deepEqual(check(`${WALLET_RAW}0`), rejected('wrong length'));
  assert.deepEqual(check(replaceCharAt(WALLET_RAW, 5, 'g')), rejected('not a hex string'));
});
