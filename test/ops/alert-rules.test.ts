import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '../helpers/process/app-server.js';
import { metricNames } from '../helpers/promql.js';
import { promtoolSkip } from '../helpers/requirements.js';

/**
 * The Prometheus alert rules in ops/prometheus: `promtool check rules` passes and their unit
 * tests (ops/prometheus/tests) pass. That every metric they name is exported:
 * test/ops/metrics-named.test.ts.
 */
const RULES_DIR = path.join(REPO_ROOT, 'ops', 'prometheus');
const ruleFiles = readdirSync(RULES_DIR).filter((name) => name.endsWith('.yml')).map((name) => path.join(RULES_DIR, name));
const testFiles = readdirSync(path.join(RULES_DIR, 'tests')).filter((name) => name.endsWith('.yml')).map((name) => path.join(RULES_DIR, 'tests', name));

describe('Prometheus alert rules in ops/prometheus', { skip: promtoolSkip() }, () => {
  it('the names a rule or panel reads: metrics, not labels, label lists, ranges, variables or PromQL words', () => {
    assert.deepEqual(metricNames('max by (asset) (a_b{bound="min"}) < on (asset) max by (asset) (c_d{x="y"})'), ['a_b', 'c_d']);
    assert.deepEqual(
      metricNames('histogram_quantile(0.99, sum by (le) (rate(h_seconds_bucket{instance=~"$instance"}[$__rate_interval]))) / time()'),
      ['h_seconds_bucket'],
    );
  });

  it('promtool check rules: every rule file is valid', () => {
    assert.ok(ruleFiles.length >= 3, ruleFiles.join(', '));
    const result = spawnSync('promtool', ['check', 'rules', ...ruleFiles], { encoding: 'utf8' });
    assert.equal(result.status, 0, `${result.stdout}${result.stderr}`);
  });

  it('promtool test rules: each alert fires on what it should, and not on what it should not', () => {
    // One test file per rule file: a rule file nobody tests is a rule nobody has seen fire.
    assert.deepEqual(
      testFiles.map((file) => path.basename(file, '.test.yml')).sort(),
      ruleFiles.map((file) => path.basename(file, '.yml')).sort(),
    );
    const result = spawnSync('promtool', ['test', 'rules', ...testFiles], { encoding: 'utf8', cwd: path.join(RULES_DIR, 'tests') });
    assert.equal(result.status, 0, `${result.stdout}${result.stderr}`);
  });
});
