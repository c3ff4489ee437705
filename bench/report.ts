/**
 * The bench's report: the measures' figures as the Markdown of bench/results/latest.md, with the
 * machine, its load and the settings they were taken under, and the profiles' summaries.
 */
import { spawnSync } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { profiled, type Measure, type Soak } from './measures.js';
import { formatSummary, summariseProfile } from './profile-summary.js';
import { CONNECTIONS, PROFILE_DIR, ROUNDS, RUN_SECONDS, WARMUP } from './run-options.js';
import { PRODUCTION_LIKE_ENV, type CpuPlan } from './server.js';

const fmt = (value: number | undefined, digits = 0) => (value !== undefined && Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const ms = (value: number) => (Number.isFinite(value) ? (value < 10 ? value.toFixed(2) : value.toFixed(1)) : 'n/a');

/** Read before this process pins itself (nproc follows the affinity mask). */
const CPU_MODEL = (() => {
  const model = spawnSync('sh', ['-c', "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"], { encoding: 'utf8' }).stdout?.trim();
  const cpus = spawnSync('nproc', { encoding: 'utf8' }).stdout?.trim();
  return `${model || 'unknown cpu'} (${cpus ?? '?'} cpus)`;
})();

export function loadAverage(): string {
  try {
    return spawnSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).stdout.split(' ').slice(0, 3).join(' ');
  } catch {
    return 'n/a';
  }
}

export function report(plan: CpuPlan, measures: Measure[], soakResult: Soak | undefined, started: Date, loadBefore: string): string {
  const lines = [
    '# Benchmark results',
    '',
    `Run ${started.toISOString()} on ${CPU_MODEL}; node ${process.version}; ${plan.note}; ` +
      `load average before ${loadBefore}, after ${loadAverage()} (the machine is shared).`,
    `Per measure and side: ${ROUNDS} × ${RUN_SECONDS} s, the order reversed every round (ABBA with the ceiling; ` +
      `raw node:http, bare Fastify, service ABC CBA for the public GETs), each side after its own ${WARMUP} s warm-up; ` +
      `${CONNECTIONS} connections (keep-alive, no pipelining); every request carries a partner key (budget 1,000,000/min). ` +
      `Server: ${Object.entries(PRODUCTION_LIKE_ENV).map(([k, v]) => `${k}=${v}`).join(' ')}. Latencies in ms.`,
    '',
    '| measure | req/s | p50 | p99 | ceiling | req/s | p50 | p99 | ratio | goal | p99 at half rate | server CPU µs/req (ceiling) | peak RSS |',
    '|---|---:|---:|---:|---|---:|---:|---:|---:|---|---:|---:|---:|',
    ...measures.map(
      (m) =>
        `| ${m.measure} | ${fmt(m.app.rps)} | ${ms(m.app.p50)} | ${ms(m.app.p99)} | ${m.ceilingName} | ${fmt(m.ceiling.rps)} | ` +
        `${ms(m.ceiling.p50)} | ${ms(m.ceiling.p99)} | **${fmt(m.ratio, 2)}** | ≥ ${m.goal.toFixed(2)} ${m.ratio >= m.goal ? 'met' : 'SHORT'} | ` +
        `${ms(m.halfRate.p99)} at ${m.halfRate.rate}/s | ${fmt(m.app.cpuUsPerRequest)}` +
        `${m.ceiling.cpuUsPerRequest === undefined ? '' : ` (${fmt(m.ceiling.cpuUsPerRequest)})`} | ${fmt(m.peakRssMb)} MB |`,
    ),
    '',
    'Server CPU µs/req: CPU time of the server process (user + system, from /proc) per answered request while saturated; ' +
      'for the raw node:http ceilings the same figure of the raw server. Less sensitive to other load on the machine than req/s.',
    '',
    ...frameworkFloor(measures),
  ];
  if (measures.some((m) => m.name.endsWith('-2p'))) {
    lines.push(
      '"2 processes" rows: the service as WEB_CONCURRENCY=2 (node:cluster, one port), not pinned: its two API processes, ' +
        'PostgreSQL, pgbench and the load generator all share the 2 cores, so these rows show what a second process buys ' +
        'on this machine, not on one with a core per process. CPU µs/req and peak RSS are summed over the primary and both workers.',
      '',
    );
  }
  for (const m of measures.filter((m) => m.app.failed > 0 || m.halfRate.failed > 0)) {
    lines.push(`- ${m.measure}: ${m.app.failed} failed answers saturated, ${m.halfRate.failed} at half rate.`);
  }
  const filled = measures.filter((m) => m.fullCache !== undefined);
  if (filled.length > 0) {
    lines.push(
      `With the order read cache full (after the measure, orders made until the partner had as many as the cache keeps and each read once): ` +
        filled.map((m) => `${m.measure} server: ${m.fullCache?.orders ?? 'n/a'} orders kept, RSS ${fmt(m.fullCache?.rssMb)} MB, peak ${fmt(m.fullCache?.peakRssMb)} MB`).join('; ') +
        ' (bars: peak under 200 MB on PostgreSQL, 400 MB on PGlite).',
      '',
    );
  }
  const notes = measures.filter((m) => m.note !== undefined).map((m) => `${m.measure}: ${m.note ?? ''}`);
  if (notes.length > 0) lines.push(`Bodies: ${notes.join('; ')}.`, '');
  if (soakResult !== undefined) {
    lines.push(
      `Soak: ${soakResult.seconds} s of mixed traffic (currencies, rates float, rates fixed, POST order in turn per connection), ` +
        `saturated at ${fmt(soakResult.rps)} req/s: RSS ${fmt(soakResult.startRssMb)} MB after warm-up, ` +
        `${fmt(soakResult.endRssMb)} MB at the end (growth ${fmt(soakResult.growthMb, 1)} MB, ${fmt(soakResult.secondHalfGrowthMb, 1)} MB of it ` +
        `in the second half: ${fmt(soakResult.secondHalfGrowthPct, 1)} % of the RSS at half time, goal < 5 % ` +
        `${soakResult.secondHalfGrowthPct < 5 ? 'met' : 'SHORT'}), ${fmt(soakResult.afterIdleRssMb)} MB after 2 s idle; peak ${fmt(soakResult.peakRssMb)} MB` +
        `${soakResult.failed > 0 ? `; ${soakResult.failed} failed answers` : ''}.`,
      '',
    );
  }
  return lines.join('\n');
}

/** The bare Fastify side of the public GETs, as a table after the main one (nothing without them). */
function frameworkFloor(measures: Measure[]): string[] {
  const rows = measures.flatMap((m) => (m.floor === undefined ? [] : [{ m, floor: m.floor }]));
  if (rows.length === 0) return [];
  return [
    '### Framework floor (bare Fastify 5, same bytes, same route)',
    '',
    '| measure | bare Fastify req/s | p50 | p99 | CPU µs/req | bare Fastify / raw node:http (by CPU/req) | service / bare Fastify (by CPU/req) |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      ({ m, floor }) =>
        `| ${m.measure} | ${fmt(floor.fastify.rps)} | ${ms(floor.fastify.p50)} | ${ms(floor.fastify.p99)} | ${fmt(floor.fastify.cpuUsPerRequest)} | ` +
        `**${fmt(floor.ratioToRaw, 2)}** (${fmt(floor.cpuRatioToRaw, 2)}) | **${fmt(floor.serviceRatio, 2)}** (${fmt(floor.serviceCpuRatio, 2)}) |`,
    ),
    '',
    'A Fastify 5 app with one route, no plugins, no hooks and no logger, serving the raw ceiling\'s bytes, measured in the same ' +
      'rotation: its ratio to raw node:http is the most any Fastify service can reach on this machine, and the service\'s ratio ' +
      'to it is what the service\'s own work (key check, rate limit, validation, logging, handler) costs on top of the framework; ' +
      'in brackets the same ratios from CPU µs/req (raw / Fastify, Fastify / service), the steadier figures.',
    '',
  ];
}

export async function profileSection(): Promise<string> {
  let text = '\n## Profiles (server main thread, --cpu-prof, samples inside the measured runs only)\n\n';
  for (const { label, windows } of profiled) {
    try {
      // The main thread's profile has thread id 0 (a server run through tsx also had its loader's).
      const dir = path.join(PROFILE_DIR, label);
      const main = (await readdir(dir)).filter((name) => /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/.test(name)).sort().pop();
      if (main === undefined) throw new Error(`no main-thread profile in ${dir}`);
      text += `Profile: bench/results/profiles/${label}/${main}\n\n`;
      text += `${formatSummary(label, await summariseProfile(path.join(dir, main), 25, windows))}\n`;
    } catch (error) {
      text += `#### ${label}\n\nno profile (${error instanceof Error ? error.message : String(error)})\n\n`;
    }
  }
  return text;
}
