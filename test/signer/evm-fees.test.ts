import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../src/config.js';
import { boundedFees, bump, replacementFees } from '../../src/signer/evm/evm-fees.js';
import { loadSignerConfig } from '../../src/signer/signer-config.js';

const GWEI = 10n ** 9n;
const bounds = { minPriorityFee: GWEI / 10n, maxFee: 100n * GWEI };

/** docs/contract.md §11.7: EVM fees are bounded, and a replacement pays at least 10 % more of both. */
describe('EVM fees (signer)', () => {
  it('takes twice the base fee plus the tip, within the floor and the ceiling', () => {
    assert.deepEqual(boundedFees(10n * GWEI, GWEI, bounds), {
      estimate: { maxFeePerGas: 21n * GWEI, maxPriorityFeePerGas: GWEI },
      used: { maxFeePerGas: 21n * GWEI, maxPriorityFeePerGas: GWEI },
      bounded: false,
    });
    const floored = boundedFees(10n * GWEI, 0n, bounds);
    assert.deepEqual(floored.used, { maxFeePerGas: 20n * GWEI + GWEI / 10n, maxPriorityFeePerGas: GWEI / 10n });
    assert.equal(floored.bounded, true);
    const capped = boundedFees(80n * GWEI, 2n * GWEI, bounds);
    assert.deepEqual(capped.used, { maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: 2n * GWEI });
    assert.equal(capped.bounded, true);
    // A tip above the ceiling is cut to it: the tip never passes the cap.
    assert.deepEqual(boundedFees(0n, 200n * GWEI, bounds).used, { maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: 100n * GWEI });
  });

  it('bumps by at least 10 %, rounded up, and at least one wei', () => {
    assert.equal(bump(100n), 110n);
    assert.equal(bump(101n), 112n);
    assert.equal(bump(0n), 1n);
    assert.equal(bump(5n), 6n);
  });

  it('replaces with both fees ≥ +10 % or what the node asks now, never past the ceiling', () => {
    const old = { maxFeePerGas: 20n * GWEI, maxPriorityFeePerGas: 2n * GWEI };
    assert.deepEqual(replacementFees(old, { maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI }, bounds), { maxFeePerGas: 22n * GWEI, maxPriorityFeePerGas: (22n * GWEI) / 10n });
    assert.deepEqual(replacementFees(old, { maxFeePerGas: 50n * GWEI, maxPriorityFeePerGas: 5n * GWEI }, bounds), { maxFeePerGas: 50n * GWEI, maxPriorityFeePerGas: 5n * GWEI });
    assert.equal(replacementFees({ maxFeePerGas: 95n * GWEI, maxPriorityFeePerGas: GWEI }, old, bounds), undefined, '104.5 gwei would pass the 100 gwei ceiling');
  });

  it('reads SIGNER_MIN_PRIORITY_FEE_GWEI_<CHAIN>, SIGNER_MAX_FEE_GWEI_<CHAIN>, SIGNER_CHAIN_ID_<CHAIN> and EVM_REPLACE_AFTER_BLOCKS', () => {
    const base = { DATABASE_URL: 'postgres://signer@db/exchange', CHAIN_ETH_RPC_URL: 'http://127.0.0.1:8545', CHAIN_BSC_RPC_URL: 'http://127.0.0.1:8546' };
    const defaults = loadSignerConfig(base);
    assert.deepEqual(defaults.evmFees, { ETH: { minPriorityFee: GWEI / 100n, maxFee: 500n * GWEI }, BSC: { minPriorityFee: GWEI / 20n, maxFee: 50n * GWEI } });
    assert.equal(defaults.replaceAfterBlocks, 12);
    assert.deepEqual(Object.keys(defaults.rpcUrls), ['ETH', 'BSC']);
    assert.deepEqual(defaults.fees, {}, 'no Bitcoin fee bounds for EVM chains');
    const set = loadSignerConfig({ ...base, SIGNER_MIN_PRIORITY_FEE_GWEI_ETH: '0', SIGNER_MAX_FEE_GWEI_ETH: '1.5', EVM_REPLACE_AFTER_BLOCKS: '3' });
    assert.deepEqual(set.evmFees.ETH, { minPriorityFee: 0n, maxFee: 1_500_000_000n });
    assert.equal(set.replaceAfterBlocks, 3);
    assert.deepEqual(defaults.chainIds, {});
    assert.deepEqual(loadSignerConfig({ ...base, SIGNER_CHAIN_ID_ETH: '1', SIGNER_CHAIN_ID_BSC: '56' }).chainIds, { ETH: 1, BSC: 56 });
    assert.throws(() => loadSignerConfig({ ...base, SIGNER_CHAIN_ID_ETH: 'one' }), ConfigError);
    assert.throws(() => loadSignerConfig({ ...base, SIGNER_MAX_FEE_GWEI_ETH: '0' }), ConfigError);
    assert.throws(() => loadSignerConfig({ ...base, SIGNER_MAX_FEE_GWEI_ETH: '0.0000000001' }), /at most 9 decimals/);
    assert.throws(() => loadSignerConfig({ ...base, SIGNER_MIN_PRIORITY_FEE_GWEI_ETH: '2', SIGNER_MAX_FEE_GWEI_ETH: '1' }), /below SIGNER_MIN_PRIORITY_FEE_GWEI_ETH/);
  });
});
