import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../src/config.js';
import { Decimal } from '../../src/domain/money.js';
import { checkTip, DEFAULT_FEE_GUARD, guardFee, NodeBehind } from '../../src/signer/fee-guard.js';
import { loadSignerConfig } from '../../src/signer/signer-config.js';

const d = (value: string): Decimal => new Decimal(value);
const limits = { floor: d('1'), ceiling: d('500'), maxJump: d('3') };

/** docs/contract.md §11.7: a fee estimate is bounded (floor, ceiling, jump), and none comes from a node behind its chain. */
describe('fee guard (signer)', () => {
  it('uses the estimate as it is within the bounds', () => {
    assert.deepEqual(guardFee(d('12.5'), { ...limits, lastUsed: d('10') }), { used: d('12.5'), bounds: [] });
    assert.deepEqual(guardFee(d('12.5'), { ...limits, lastUsed: undefined }), { used: d('12.5'), bounds: [] });
  });

  it('holds a jump to maxJump × the last fee used, and says so', () => {
    const jumped = guardFee(d('400'), { ...limits, lastUsed: d('10') });
    assert.equal(jumped.used.toFixed(), '30');
    assert.deepEqual(jumped.bounds, ['jump']);
    // Exactly maxJump times is not a jump.
    assert.deepEqual(guardFee(d('30'), { ...limits, lastUsed: d('10') }).bounds, []);
    // A fall is never held back.
    assert.deepEqual(guardFee(d('2'), { ...limits, lastUsed: d('100') }), { used: d('2'), bounds: [] });
  });

  it('the ceiling wins over everything, the floor over the jump; a missing estimate is the floor, said', () => {
    assert.deepEqual(guardFee(d('900'), { ...limits, lastUsed: undefined }), { used: d('500'), bounds: ['ceiling'] });
    assert.deepEqual(guardFee(d('900'), { ...limits, lastUsed: d('400') }), { used: d('500'), bounds: ['ceiling'] });
    const jumpAndCeiling = guardFee(d('2000'), { ...limits, lastUsed: d('200') });
    assert.deepEqual(jumpAndCeiling, { used: d('500'), bounds: ['jump', 'ceiling'] });
    assert.deepEqual(guardFee(d('0.2'), { ...limits, lastUsed: undefined }), { used: d('1'), bounds: ['floor'] });
    assert.deepEqual(guardFee(undefined, { ...limits, lastUsed: d('50') }), { used: d('1'), bounds: ['missing'] });
  });

  it('a node behind its headers or with an old newest block is behind; within the bounds it is not', () => {
    const now = new Date('2026-11-27T12:00:00Z');
    const fresh = { blocks: 100, headers: 100, tipTime: new Date(now.getTime() - 600_000) };
    assert.doesNotThrow(() => checkTip('BTC', fresh, now, DEFAULT_FEE_GUARD));
    assert.doesNotThrow(() => checkTip('BTC', { ...fresh, headers: 102 }, now, DEFAULT_FEE_GUARD));
    assert.throws(
      () => checkTip('BTC', { ...fresh, headers: 103 }, now, DEFAULT_FEE_GUARD),
      (error) => error instanceof NodeBehind && error.reason === 'block_lag' && /3 blocks behind/.test(error.message),
    );
    assert.doesNotThrow(() => checkTip('BTC', { ...fresh, tipTime: new Date(now.getTime() - 7200_000) }, now, DEFAULT_FEE_GUARD));
    assert.throws(
      () => checkTip('BTC', { ...fresh, tipTime: new Date(now.getTime() - 7201_000) }, now, DEFAULT_FEE_GUARD),
      (error) => error instanceof NodeBehind && error.reason === 'stale_tip' && /7201 s old/.test(error.message),
    );
  });

  it('reads SIGNER_FEE_MAX_JUMP, SIGNER_FEE_MAX_BLOCK_LAG and SIGNER_FEE_MAX_AGE_SECONDS_<CHAIN>, with defaults per chain family', () => {
    const base = { DATABASE_URL: 'postgres://signer@db/x', CHAIN_LTC_RPC_URL: 'http://127.0.0.1:9332', CHAIN_ETH_RPC_URL: 'http://127.0.0.1:8545' };
    const defaults = loadSignerConfig(base).feeGuards;
    assert.deepEqual(defaults.LTC, { maxJump: d('3'), maxBlockLag: 2, maxAgeSeconds: 7200 });
    assert.deepEqual(defaults.ETH, { maxJump: d('3'), maxBlockLag: 2, maxAgeSeconds: 600 });
    const set = loadSignerConfig({ ...base, SIGNER_FEE_MAX_JUMP: '1.5', SIGNER_FEE_MAX_BLOCK_LAG: '0', SIGNER_FEE_MAX_AGE_SECONDS_LTC: '3600' }).feeGuards;
    assert.deepEqual(set.LTC, { maxJump: d('1.5'), maxBlockLag: 0, maxAgeSeconds: 3600 });
    for (const [name, value] of [['SIGNER_FEE_MAX_JUMP', '1'], ['SIGNER_FEE_MAX_JUMP', 'x'], ['SIGNER_FEE_MAX_BLOCK_LAG', '-1'], ['SIGNER_FEE_MAX_AGE_SECONDS_LTC', '5']] as const) {
      assert.throws(() => loadSignerConfig({ ...base, [name]: value }), (error) => error instanceof ConfigError && error.message.includes(name), `${name}=${value}`);
    }
  });
});
