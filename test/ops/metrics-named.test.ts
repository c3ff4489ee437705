// test-direct: postgres
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createDemoXpubs } from '../../src/domain/deposit-addresses/index.js';
import { dashboardPanels, metricNames, ruleExprs, undeclared } from '../helpers/promql.js';
import { REPO_ROOT } from '../helpers/process/app-server.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { testEngine } from '../helpers/test-database.js';

/**
 * Every metric an alert rule (ops/prometheus) or a dashboard panel (ops/grafana) names is one
 * the service exports: a rule on a misspelt metric never fires, a panel on one stays empty, and
 * nothing says so. The app runs as production does with every optional part that exports
 * metrics switched on: PostgreSQL, a signed chain (the signer's gauges), a chain node (the
 * chain watcher's), and one lifecycle pass (worker_lag_seconds is exported by the processes
 * that run passes).
 */
const RULES_DIR = path.join(REPO_ROOT, 'ops', 'prometheus');
const ruleNames = readdirSync(RULES_DIR)
  .filter((name) => name.endsWith('.yml'))
  .flatMap((name) => ruleExprs(path.join(RULES_DIR, name)))
  .flatMap(metricNames);
const panelNames = dashboardPanels()
  .flatMap((panel) => panel.targets ?? [])
  .flatMap((target) => metricNames(target.expr ?? ''));

describe('every metric an alert rule or a dashboard panel names is exported', { skip: testEngine() !== 'postgres' && 'the signer gauges are exported under DATABASE_URL: runs on the PostgreSQL pass' }, () => {
  let t: TestApp;
  let metrics: string;
  before(async () => {
    t = await buildTestApp({
      production: true,
      env: {
        WORKER: 'off',
        SIMULATOR_AUTO: '0',
        PRICE_POLL_SECONDS: '3600',
        PAYOUT_SIGNER_CHAINS: 'LTC',
        DEPOSIT_XPUB_BTC: createDemoXpubs().bitcoin,
        HOT_WALLET_MIN_LTC: '1',
        // A node nobody answers on (port 9, discard): the watcher is built and its passes fail.
        CHAIN_LTC_RPC_URL: 'http://127.0.0.1:9/',
      },
    });
    await t.runtime.worker.tick();
    metrics = (await t.operator({ method: 'GET', url: '/metrics' })).body;
  });
  after(() => t?.close());

  it('each name in the alert rules is a metric in /metrics (its TYPE line)', () => {
    assert.ok(ruleNames.includes('hot_wallet_spendable') && ruleNames.includes('orders_unchanged_seconds'), ruleNames.join(', '));
    assert.deepEqual(undeclared(new Set(ruleNames), metrics), []);
  });

  it('each name in the dashboard panels is a metric in /metrics (a histogram by its _bucket series)', () => {
    assert.ok(panelNames.includes('http_request_duration_seconds_bucket') && panelNames.includes('chain_watcher_tip_height'), panelNames.join(', '));
    assert.deepEqual(undeclared(new Set(panelNames), metrics), []);
  });
});
