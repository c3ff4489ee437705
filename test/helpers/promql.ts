import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './process/app-server.js';

/**
 * What the ops/ tests read out of PromQL (alert rules, dashboard panels): the metric names an
 * expression reads, so a test can check each against /metrics. A rule or panel on a misspelt
 * metric shows nothing, and nothing says so.
 */

/** PromQL words that are not metric names: aggregations, functions, operators, matching. */
const PROMQL_WORDS = new Set([
  'max', 'min', 'sum', 'avg', 'count', 'topk', 'bottomk', 'and', 'or', 'unless', 'rate', 'irate', 'increase', 'delta',
  'changes', 'abs', 'absent', 'histogram_quantile', 'clamp_min', 'clamp_max', 'time', 'bool', 'offset',
]);

/**
 * The metric names an expression reads: its identifiers, less label matchers, label lists, range
 * selectors, Grafana's variables and PromQL's own words.
 */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\$\w+/g, '')
    .replace(/\b(by|on|without|ignoring|group_left|group_right)\s*\([^)]*\)/g, '')
    .replace(/"[^"]*"/g, '');
  const words = (bare.match(/[a-zA-Z_:][a-zA-Z0-9_:]*/g) ?? []).filter((word) => !PROMQL_WORDS.has(word));
  return [...new Set(words)];
}

/** The `expr:` values of a rule file (plain YAML: folded blocks, `>-` or `|`, or one line). */
export function ruleExprs(file: string): string[] {
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

/**
 * Of `names`, those /metrics does not declare (its `# TYPE` lines): a histogram's or summary's
 * `_bucket`, `_sum` and `_count` series are declared by the histogram's own name.
 */
export function undeclared(names: Iterable<string>, metricsText: string): string[] {
  const types = new Map([...metricsText.matchAll(/^# TYPE (\S+) (\S+)/gm)].map((match) => [match[1] as string, match[2] as string]));
  return [...names].filter((name) => {
    if (types.has(name)) return false;
    const base = /^(.+)_(bucket|sum|count)$/.exec(name)?.[1];
    return base === undefined || !['histogram', 'summary'].includes(types.get(base) ?? '');
  });
}

/** The Grafana dashboard operators import (ops/grafana). */
export const DASHBOARD_FILE = path.join(REPO_ROOT, 'ops', 'grafana', 'exchange-dashboard.json');

export interface DashboardPanel {
  id: number;
  type: string;
  title: string;
  gridPos?: { h: number; w: number; x: number; y: number };
  datasource?: { uid?: string };
  targets?: Array<{ expr?: string; refId?: string }>;
  panels?: DashboardPanel[];
}

/** Every panel of the dashboard, those inside collapsed rows too. */
export function dashboardPanels(): DashboardPanel[] {
  const dashboard = JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as { panels: DashboardPanel[] };
  return dashboard.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]);
}
