import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { dashboardPanels as panels } from '../helpers/promql.js';
import { promtoolSkip } from '../helpers/requirements.js';

/**
 * The Grafana dashboard in ops/grafana: a dashboard Grafana imports (unique panel ids, every
 * panel placed and on the datasource variable), and every panel's query valid PromQL (promtool
 * parses them as recording rules). That every metric a panel names is exported:
 * test/ops/metrics-named.test.ts.
 */

/** The queries as Prometheus would run them: Grafana's variables replaced by what they stand for. */
function expand(expr: string): string {
  return expr.replaceAll('$__rate_interval', '5m').replaceAll('$instance', '.*');
}

describe('the Grafana dashboard in ops/grafana', () => {
  it('has unique panel ids, and every panel is placed, titled and reads the datasource variable', () => {
    const all = panels();
    assert.equal(new Set(all.map((panel) => panel.id)).size, all.length);
    for (const panel of all) {
      assert.ok(panel.title !== '' && panel.gridPos !== undefined, `panel ${panel.id}`);
      if (panel.type === 'row') continue;
      assert.equal(panel.datasource?.uid, '${datasource}', panel.title);
      assert.ok((panel.targets ?? []).length > 0 && (panel.targets ?? []).every((target) => (target.expr ?? '') !== ''), panel.title);
    }
  });

  it('shows what operators watch: requests, errors, latency, order flow, stuck orders, webhooks, chains, prices, pools, treasury, signer', () => {
    const queries = panels().flatMap((panel) => panel.targets ?? []).map((target) => target.expr ?? '').join('\n');
    for (const metric of [
      'http_requests_total', 'http_request_duration_seconds_bucket', 'order_transitions_total', 'orders_by_status', 'orders_unchanged_seconds',
      'webhook_queue_depth', 'chain_watcher_tip_height', 'price_feed_age_seconds', 'deposit_address_pool_available', 'treasury_drift', 'signer_payouts',
    ]) {
      assert.ok(queries.includes(metric), metric);
    }
  });

  it('every query is valid PromQL (promtool check rules on them as recording rules)', { skip: promtoolSkip() }, () => {
    const queries = panels().flatMap((panel) => (panel.targets ?? []).map((target) => expand(target.expr ?? '')));
    const dir = mkdtempSync(path.join(tmpdir(), 'epa-dashboard-'));
    try {
      const file = path.join(dir, 'panels.yml');
      const rules = queries.map((expr, index) => `      - record: dashboard:query_${index}\n        expr: ${JSON.stringify(expr)}`).join('\n');
      writeFileSync(file, `groups:\n  - name: dashboard\n    rules:\n${rules}\n`);
      const result = spawnSync('promtool', ['check', 'rules', file], { encoding: 'utf8' });
      assert.equal(result.status, 0, `${result.stdout}${result.stderr}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
