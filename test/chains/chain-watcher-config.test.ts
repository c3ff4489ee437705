import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChainWatcher } from '../../src/chains/adapters.js';
import { createChainWatchers, simulatorExcept } from '../../src/chains/nodes/create-chain-watchers.js';
import { systemClock } from '../../src/clock.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import type { Db } from '../../src/db/schema/index.js';
import { createMetrics } from '../../src/metrics.js';

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined };
/** The factory only keeps the handle; no query runs here. */
const noDb = {} as Db;

describe('CHAIN_<CHAIN>_RPC_URL', () => {
  it('is read per chain, credentials and all', () => {
    const config = loadConfig({ CHAIN_LTC_RPC_URL: 'http://user:pass@127.0.0.1:9332', CHAIN_ETH_RPC_URL: 'https://eth.example/rpc', CHAIN__RPC_URL: 'x' });
    assert.deepEqual(config.chainRpcUrls, { LTC: 'http://user:pass@127.0.0.1:9332', ETH: 'https://eth.example/rpc' });
    assert.deepEqual(loadConfig({}).chainRpcUrls, {});
  });

  it('refuses a non-http URL or a lower-case chain, naming the variable but not the value', () => {
    assert.throws(() => loadConfig({ CHAIN_LTC_RPC_URL: 'ftp://user:secret@host' }), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.variable, 'CHAIN_LTC_RPC_URL');
      assert.doesNotMatch(error.message, /secret/);
      return true;
    });
    assert.throws(() => loadConfig({ CHAIN_ltc_RPC_URL: 'http://127.0.0.1:9332' }), /upper-case/);
  });

  it('builds one watcher per configured chain, and stops the start for a chain without an adapter', () => {
    const config = loadConfig({ CHAIN_LTC_RPC_URL: 'http://127.0.0.1:9332', CHAIN_BSC_RPC_URL: 'http://127.0.0.1:8545' });
    const watchers = createChainWatchers(config, noDb, systemClock, createMetrics(), quiet);
    assert.deepEqual(watchers.map((watcher) => watcher.name), ['node:BSC', 'node:LTC']);
    assert.ok(watchers[1]?.watches('LTC') && !watchers[1].watches('BTC'));
    assert.deepEqual(createChainWatchers(loadConfig({}), noDb, systemClock, createMetrics(), quiet), []);
    assert.throws(
      () => createChainWatchers(loadConfig({ CHAIN_TRON_RPC_URL: 'http://127.0.0.1:8090' }), noDb, systemClock, createMetrics(), quiet),
      (error: unknown) => error instanceof ConfigError && error.variable === 'CHAIN_TRON_RPC_URL',
    );
  });

  it('leaves the simulator every chain without a node watcher', () => {
    const simulator: ChainWatcher = { name: 'simulator', watches: () => true, poll: async () => [] };
    const rest = simulatorExcept(simulator, new Set(['LTC']));
    assert.equal(rest.watches('LTC'), false);
    assert.equal(rest.watches('BTC'), true);
    assert.equal(simulatorExcept(simulator, new Set()), simulator);
  });
});
