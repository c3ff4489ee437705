import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createDemoXpubs } from '../../src/domain/deposit-addresses/index.js';
import { REPO_ROOT } from '../helpers/process/app-server.js';
import { promtoolSkip } from '../helpers/requirements.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { testEngine } from '../helpers/test-database.js';

/**
 * The Prometheus alert rules in ops/prometheus: `promtool check rules` passes, their unit tests
 * (ops/prometheus/tests) pass, and every metric a rule names is one the service exports (a rule
 * on a misspelt metric never fires, and nothing says so).
 */
const RULES_DIR = path.join(REPO_ROOT, 'ops', 'prometheus');
const ruleFiles = readdirSync(RULES_DIR).filter((name) => name.endsWith('.yml')).map((name) => path.join(RULES_DIR, name));
const testFiles = readdirSync(path.join(RULES_DIR, 'tests')).filter((name) => name.endsWith('.yml')).map((name) => path.join(RULES_DIR, 'tests', name));

/** PromQL words that are not metric names: aggregations, operators, matching. */
const PROMQL_WORDS = new Set(['max', 'min', 'sum', 'avg', 'count', 'and', 'or', 'unless', 'rate', 'increase', 'abs', 'absent']);

/** The metric names an expression reads: its identifiers, less label matchers, label lists and PromQL's own words. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/\{[^}]*\}/g, '')
    .replace(/\b(by|on|without|ignoring|group_left|group_right)\s*\([^)]*\)/g, '')
    .replace(/"[^"]*"/g, '');
  return [...new Set((bare.match(/[a-zA-Z_:][a-zA-Z0-9_:]*/g) ?? []).filter((word) => !PROMQL_WORDS.has(word)))];
}

function exprs(file: string): string[] {
  // The rule files are plain YAML whose `expr:` values are folded blocks (>-) or one line.
  const lines = readFileSync(file, 'utf8').split('\n');
  const found: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const match = /^(\s*)expr:\s*(.*)$/.exec(lines[i] ?? '');
    if (match === null) continue;
    if (match[2] !== '>-' && match[2] !== '|') {
      found.push(match[2] ?? '');
      continue;
    }
    const body: string[] = [];
    while (i + 1 < lines.length && ((lines[i + 1] ?? '').trim() === '' || (lines[i + 1] ?? '').search(/\S/) > (match[1] ?? '').length)) body.push((lines[++i] ?? '').trim());
    found.push(body.join(' '));
  }
  return found;
}

describe('Prometheus alert rules in ops/prometheus', { skip: promtoolSkip() }, () => {
  it('the names a rule reads: metrics, not labels, label lists or PromQL words', () => {
    assert.deepEqual(metricNames('max by (asset) (a_b{bound="min"}) < on (asset) max by (asset) (c_d{x="y"})'), ['a_b', 'c_d']);
  });

  it('promtool check rules: every rule file is valid', () => {
    assert.ok(ruleFiles.length > 0);
    const result = spawnSync('promtool', ['check', 'rules', ...ruleFiles], { encoding: 'utf8' });
    assert.equal(result.status, 0, `${result.stdout}${result.stderr}`);
  });

  it('promtool test rules: each alert fires on what it should, and not on what it should not', () => {
    assert.ok(testFiles.length > 0);
    const result = spawnSync('promtool', ['test', 'rules', ...testFiles], { encoding: 'utf8', cwd: path.join(RULES_DIR, 'tests') });
    assert.equal(result.status, 0, `${result.stdout}${result.stderr}`);
  });
});

describe('every metric an alert rule names is exported', { skip: testEngine() !== 'postgres' && 'the signer gauges are exported under DATABASE_URL: runs on the PostgreSQL pass' }, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({
      production: true,
      env: { WORKER: 'off', SIMULATOR_AUTO: '0', PRICE_POLL_SECONDS: '3600', PAYOUT_SIGNER_CHAINS: 'LTC', DEPOSIT_XPUB_BTC: createDemoXpubs().bitcoin, HOT_WALLET_MIN_LTC: '1' },
    });
  });
  after(() => t?.close());

  it('each name is a metric in /metrics (its TYPE line), so no rule waits on a series that never comes', async () => {
    const names = new Set(ruleFiles.flatMap(exprs).flatMap(metricNames));
    assert.ok(names.has('hot_wallet_spendable') && names.has('signer_payouts'), [...names].join(', '));
    const metrics = (await t.operator({ method: 'GET', url: '/metrics' })).body;
    const missing = [...names].filter((name) => !new RegExp(`^# TYPE ${name} `, 'm').test(metrics));
    assert.deepEqual(missing, []);
  });
});
