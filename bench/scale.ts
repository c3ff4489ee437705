import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RequestSpec } from 'autocannon';
import pg from 'pg';
import { createPartner } from '../test/helpers/process/http-client.js';
import { DIST_DIR, startWorker } from '../test/helpers/process/app-server.js';
import type { ManagedProcess } from '../test/helpers/process/managed-process.js';
import { runLoad, type LoadResult } from './load.js';
import { fleetRow, parseCounts, pgCpuUsPerOrder, saturatingMachines, shardsFor, type Fleet, type MeasuredCosts } from './scale-model.js';
import { readCpuSeconds, startServer, TEST_ZPUB, type CpuPlan, type RunningServer } from './server.js';

/**
 * `--only scale`: the same mixed traffic through 1, 2 and 4 API processes (WEB_CONCURRENCY, one
 * port) with 1 and then 2 lifecycle workers (`npm run worker`, the API processes WORKER=off), on
 * PostgreSQL: throughput per API process, CPU per request of the API processes, of the workers
 * and of PostgreSQL's backends serving this database; then one orders-only run for what an order
 * costs PostgreSQL. Nothing is pinned: the API processes, the workers, PostgreSQL and the load
 * generator share the machine's cores, as machines of their own would not (bench/README.md,
 * "Scale-out": the model takes CPU per request from here, not throughput).
 */

export interface ScaleOptions {
  apiCounts: readonly number[];
  workerCounts: readonly number[];
  seconds: number;
  warmup: number;
  connections: number;
}

export interface ScaleRun {
  api: number;
  workers: number;
  /** 2xx answers per second, all processes together. */
  rps: number;
  perProcessRps: number;
  failed: number;
  statuses: Record<string, number>;
  /** API processes (and the cluster primary), µs of CPU per answered request. */
  apiCpuUsPerRequest: number;
  /** Cores the API processes used. */
  apiCores: number;
  /** Cores the workers used. */
  workerCores: number;
  /** PostgreSQL backends of this database, µs of CPU per answered request. */
  pgCpuUsPerRequest: number;
  /** Cores used with no traffic (taken off the two costs per request above). */
  idle: { api: number; workers: number; pg: number };
  /** /proc/loadavg (1, 5, 15 min) at the end of the run. */
  load: string;
}

export interface OrdersOnly {
  /** The rate asked: the order rate of the mix's run just before. */
  rate: number;
  rps: number;
  apiCpuUsPerOrder: number;
  pgCpuUsPerOrder: number;
  load: string;
}

export interface ScaleBench {
  options: ScaleOptions;
  runs: ScaleRun[];
  orders: OrdersOnly;
  orderShare: number;
}

const ORDER_BODY = JSON.stringify({
  coin_from: 'BTC',
  network_from: 'BTC',
  coin_to: 'ETH',
  network_to: 'ETH',
  amount_from: 0.05,
  rate_type: 'float',
  recipient_address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
});

/** Orders created before the load, read in turn by the mix's GET. */
const READ_ORDERS = 8;

/**
 * One cycle per connection: the catalog, a float and a fixed quote, an order created and an
 * order read, READ_ORDERS times with a different order to read. An order is one in five requests.
 */
function mixOf(auth: string, orderIds: readonly string[]): RequestSpec[] {
  const rates = '/api/v1/partner/rates?coin_from=BTC&coin_to=ETH&amount=0.5';
  return orderIds.flatMap((id): RequestSpec[] => [
    { method: 'GET', path: '/api/v1/currencies', headers: { authorization: auth } },
    { method: 'GET', path: rates, headers: { authorization: auth } },
    { method: 'GET', path: `${rates}&rate_type=fixed`, headers: { authorization: auth } },
    { method: 'POST', path: '/api/v1/partner/orders', headers: { authorization: auth, 'content-type': 'application/json' }, body: ORDER_BODY },
    { method: 'GET', path: `/api/v1/partner/orders/${id}`, headers: { authorization: auth } },
  ]);
}
const ORDER_SHARE = 1 / 5;

function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'n/a';
  }
}

/** CPU seconds of the PostgreSQL backends serving this database (the query's own excluded). */
async function backendCpu(client: pg.Client): Promise<Map<number, number>> {
  const rows = (await client.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()')).rows;
  return new Map(rows.map((row) => [row.pid, readCpuSeconds(row.pid)]));
}

/** What the backends used between two samples; one that started meanwhile counts from 0. */
function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, cpu] of after) sum += cpu - (before.get(pid) ?? 0);
  return sum;
}

function answered(result: LoadResult): number {
  return (result.statuses['200'] ?? 0) + (result.statuses['201'] ?? 0);
}

interface Measured {
  result: LoadResult;
  ok: number;
  /** CPU seconds over the loaded run, each less what the same processes used idle for as long. */
  apiCpu: number;
  workerCpu: number;
  pgCpu: number;
  /** Cores used with no traffic: the API processes, the workers, PostgreSQL's backends. */
  idle: { api: number; workers: number; pg: number };
}

interface CpuSample {
  api: number;
  workers: number;
  pg: Map<number, number>;
}

async function sample(server: RunningServer, workers: readonly ManagedProcess[], database: pg.Client): Promise<CpuSample> {
  return { api: server.cpuSeconds(), workers: workers.reduce((sum, worker) => sum + readCpuSeconds(worker.pid), 0), pg: await backendCpu(database) };
}

/**
 * A loaded run, after a window of the same length with no traffic: what the processes use
 * anyway (worker passes, the API's gauges, their queries) is taken off the loaded run's CPU, so
 * the costs per request are what a request adds; a fixed cost spread over a slow run would
 * otherwise inflate them. `overallRate`: requests per second over all connections (open loop);
 * unset, as fast as answered.
 */
async function measure(server: RunningServer, workers: readonly ManagedProcess[], database: pg.Client, requests: RequestSpec[], options: ScaleOptions, overallRate?: number): Promise<Measured> {
  if (options.warmup > 0) await runLoad({ url: server.url, connections: options.connections, duration: options.warmup, requests, overallRate });
  const idleFrom = await sample(server, workers, database);
  const idleStarted = performance.now();
  await sleep(options.seconds * 1000);
  const idleTo = await sample(server, workers, database);
  const idleSeconds = (performance.now() - idleStarted) / 1000;
  const idle = { api: (idleTo.api - idleFrom.api) / idleSeconds, workers: (idleTo.workers - idleFrom.workers) / idleSeconds, pg: cpuBetween(idleFrom.pg, idleTo.pg) / idleSeconds };
  const before = await sample(server, workers, database);
  const result = await runLoad({ url: server.url, connections: options.connections, duration: options.seconds, requests, overallRate });
  const after = await sample(server, workers, database);
  return {
    result,
    ok: answered(result),
    apiCpu: after.api - before.api - idle.api * result.seconds,
    workerCpu: after.workers - before.workers,
    pgCpu: cpuBetween(before.pg, after.pg) - idle.pg * result.seconds,
    idle,
  };
}

const perRequestUs = (cpu: number, ok: number) => (ok > 0 ? (cpu * 1e6) / ok : Number.NaN);

async function createOrders(server: RunningServer, apiKey: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${server.url}/api/v1/partner/orders`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: ORDER_BODY });
    if (response.status !== 201) throw new Error(`bench order: ${response.status} ${await response.text()}`);
    ids.push(((await response.json()) as { id: string }).id);
  }
  return ids;
}

/** The runs, configuration by configuration: a server per API count, its workers added one by one. */
export async function scaleBench(plan: CpuPlan, options: ScaleOptions, log: (message: string) => void): Promise<ScaleBench> {
  // Nothing pinned: several processes of each kind share the cores (see the module's doc).
  const unpinned: CpuPlan = { ...plan, taskset: false };
  const secretsKey = randomBytes(32).toString('hex');
  const runs: ScaleRun[] = [];
  let orders: OrdersOnly | undefined;
  for (const api of options.apiCounts) {
    const server = await startServer({ engine: 'postgres', label: `scale-${api}p`, plan: unpinned, processes: api, env: { SECRETS_KEY: secretsKey } });
    const workers: ManagedProcess[] = [];
    const database = new pg.Client({ connectionString: server.databaseUrl });
    try {
      await database.connect();
      const partner = await createPartner(server.url, server.adminToken, { name: 'bench-scale', rate_limit_per_minute: 1_000_000, max_open_orders: 1_000_000 });
      const auth = `Bearer ${partner.apiKey}`;
      const requests = mixOf(auth, await createOrders(server, partner.apiKey, READ_ORDERS));
      const workerEnv = { NODE_ENV: 'production', LOG_LEVEL: 'info', DATABASE_URL: server.databaseUrl ?? '', SECRETS_KEY: secretsKey, ADMIN_TOKEN: server.adminToken, DEPOSIT_XPUB_BTC: TEST_ZPUB, SIMULATE_LIVE_PAYOUTS: 'true' };
      for (const count of [...options.workerCounts].sort((a, b) => a - b)) {
        while (workers.length < count) workers.push(await startWorker(`bench:scale-worker-${workers.length + 1}`, workerEnv, 180_000, DIST_DIR));
        log(`scale: ${api} API process${api === 1 ? '' : 'es'}, ${count} worker${count === 1 ? '' : 's'}: ${options.seconds} s of the mix`);
        const m = await measure(server, workers, database, requests, options);
        const rps = m.ok / m.result.seconds;
        runs.push({
          api,
          workers: count,
          rps,
          perProcessRps: rps / api,
          failed: m.result.failed - (m.result.statuses['201'] ?? 0),
          statuses: m.result.statuses,
          apiCpuUsPerRequest: perRequestUs(m.apiCpu, m.ok),
          apiCores: m.apiCpu / m.result.seconds,
          workerCores: m.workerCpu / m.result.seconds,
          pgCpuUsPerRequest: perRequestUs(m.pgCpu, m.ok),
          idle: m.idle,
          load: loadAverage(),
        });
      }
      if (orders === undefined) {
        // At the rate the mix created orders: PostgreSQL's cost per order as it was inside the
        // mix, not at saturation, where waits on the same rows and pages add CPU of their own.
        const rate = Math.max(1, Math.round((runs.at(-1)?.rps ?? 0) * ORDER_SHARE));
        log(`scale: orders only at ${rate}/s (${api} API process${api === 1 ? '' : 'es'}): ${options.seconds} s`);
        const post: RequestSpec[] = [{ method: 'POST', path: '/api/v1/partner/orders', headers: { authorization: auth, 'content-type': 'application/json' }, body: ORDER_BODY }];
        const m = await measure(server, workers, database, post, options, rate);
        orders = { rate, rps: m.ok / m.result.seconds, apiCpuUsPerOrder: perRequestUs(m.apiCpu, m.ok), pgCpuUsPerOrder: perRequestUs(m.pgCpu, m.ok), load: loadAverage() };
      }
    } finally {
      await Promise.all(workers.map((worker) => worker.stop(20_000)));
      await database.end().catch(() => undefined);
      await server.stop();
    }
  }
  if (orders === undefined) throw new Error('scale: no API count given');
  return { options, runs, orders, orderShare: ORDER_SHARE };
}

/** The machines the model assumes: API machines like this one (2 cores), an 8-core primary, each planned to 70 %. */
export const MODEL_FLEET: Fleet = { apiCores: 2, pgCores: 8, utilisation: 0.7 };
const MODEL_MACHINES = [1, 2, 4, 8, 16, 32];

/** The costs the model starts from: the fewest API processes measured (no cluster primary, least contention). */
export function modelCosts(bench: ScaleBench): MeasuredCosts {
  const base = [...bench.runs].sort((a, b) => a.api - b.api || a.workers - b.workers)[0];
  if (base === undefined) throw new Error('scale: no run to model from');
  return { apiCpuUsPerRequest: base.apiCpuUsPerRequest, pgCpuUsPerRequest: base.pgCpuUsPerRequest, orderShare: bench.orderShare };
}

const f0 = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : 'n/a');
const f2 = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : 'n/a');

export function scaleSection(bench: ScaleBench): string {
  const { options, runs, orders } = bench;
  const busy = [...runs.map((run) => run.load), orders.load].some((load) => Number(load.split(' ')[0]) > 2);
  const lines = [
    '',
    '## Scale-out (`--only scale`)',
    '',
    `Mixed traffic (per connection in turn: GET /currencies, GET /partner/rates float, fixed, POST /partner/orders, GET /partner/orders/{id}; ` +
      `an order is ${f0(bench.orderShare * 100)} % of requests), ${options.connections} connections, ${options.seconds} s per configuration after ${options.warmup} s warm-up, ` +
      'PostgreSQL, nothing pinned (the API processes, the workers, PostgreSQL and the load generator share the cores). ' +
      'Load average (1, 5, 15 min) at the end of each run: the machine is shared.',
    '',
    '| API processes | workers | req/s | req/s per API process | API CPU µs/req | API cores | worker cores | PostgreSQL CPU µs/req | idle cores: API, workers, PostgreSQL | failed | load average |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|',
    ...runs.map(
      (run) =>
        `| ${run.api} | ${run.workers} | ${f0(run.rps)} | ${f0(run.perProcessRps)} | ${f0(run.apiCpuUsPerRequest)} | ${f2(run.apiCores)} | ${f2(run.workerCores)} | ` +
        `${f0(run.pgCpuUsPerRequest)} | ${f2(run.idle.api)}, ${f2(run.idle.workers)}, ${f2(run.idle.pg)} | ${run.failed} | ${run.load} |`,
    ),
    '',
    'CPU µs/req: CPU of the API processes (the cluster primary included) and of the PostgreSQL backends serving this database ' +
      '(not its WAL writer and checkpointer, which the machine\'s other databases share), from /proc, over the loaded run, less what ' +
      'the same processes used in an idle window of the same length just before (the idle cores column): what a request adds.',
    '',
    `Orders only (POST /partner/orders) at the mix's order rate (${orders.rate}/s asked): ${f0(orders.rps)} orders/s, API CPU ${f0(orders.apiCpuUsPerOrder)} µs and PostgreSQL backends' CPU ` +
      `${f0(orders.pgCpuUsPerOrder)} µs per order (load average ${orders.load}): a cross-check of PostgreSQL's cost per order; the model takes the mix's.`,
    '',
  ];
  if (busy) lines.push('**Load average above 2 during these runs: the figures are from a busy machine; the quiet-machine run remains to be done.**', '');
  const costs = modelCosts(bench);
  lines.push(
    `Model (bench/README.md, "Scale-out"), from the ${runs[0]?.api ?? 1}-process row: API ${f0(costs.apiCpuUsPerRequest)} µs and PostgreSQL ` +
      `${f0(costs.pgCpuUsPerRequest)} µs per request, so ${f0(pgCpuUsPerOrder(costs))} µs of PostgreSQL per order; API machines of ${MODEL_FLEET.apiCores} cores, ` +
      `one primary of ${MODEL_FLEET.pgCores} cores, both planned to ${f0(MODEL_FLEET.utilisation * 100)} %.`,
    '',
    '| API machines | API capacity req/s | primary limit req/s | served req/s | orders/s | bound |',
    '|---:|---:|---:|---:|---:|---|',
  );
  for (const machines of MODEL_MACHINES) {
    const row = fleetRow(machines, MODEL_FLEET, costs);
    lines.push(`| ${machines} | ${f0(row.apiCapacity)} | ${f0(row.primaryCapacity)} | ${f0(row.served)} | ${f0(row.ordersPerSecond)} | ${row.bound} |`);
  }
  const target = 10_000;
  const shards = shardsFor(target, MODEL_FLEET, costs, 0.1);
  lines.push(
    '',
    `The primary saturates at ${f2(saturatingMachines(MODEL_FLEET, costs))} API machines (${f0(fleetRow(1, MODEL_FLEET, costs).primaryCapacity * bench.orderShare)} orders/s). ` +
      `${f0(target)} orders/s would take ${shards === undefined ? 'more than sharding by partner gives' : `${shards} primaries sharded by partner`} ` +
      '(the busiest partner at most 10 % of the orders).',
    '',
  );
  return lines.join('\n');
}

/** Most API processes or workers a configuration may ask for on one machine. */
const MAX_PROCESSES = 16;

export interface ScaleRunContext {
  flags: { 'scale-api'?: string | undefined; 'scale-workers'?: string | undefined };
  duration: number;
  warmup: number;
  connections: number;
  resultsDir: string;
  started: Date;
  log: (message: string) => void;
}

/** `npm run bench -- --only scale`: the runs, the report on stdout and in bench/results/latest-scale.md. */
export async function scaleRun(plan: CpuPlan, context: ScaleRunContext): Promise<void> {
  const options: ScaleOptions = {
    apiCounts: parseCounts('scale-api', context.flags['scale-api'], [1, 2, 4], MAX_PROCESSES),
    workerCounts: parseCounts('scale-workers', context.flags['scale-workers'], [1, 2], MAX_PROCESSES),
    seconds: context.duration,
    warmup: context.warmup,
    connections: context.connections,
  };
  const bench = await scaleBench(plan, options, context.log);
  const text = scaleSection(bench);
  console.log(text);
  const stamp = context.started.toISOString().replace(/[:.]/g, '-');
  await writeFile(path.join(context.resultsDir, `${stamp}-scale.json`), JSON.stringify({ plan, bench }, null, 2));
  await writeFile(path.join(context.resultsDir, 'latest-scale.md'), `# Scale-out bench, ${context.started.toISOString()}\n${text}`);
  context.log(`written bench/results/latest-scale.md and bench/results/${stamp}-scale.json`);
}
