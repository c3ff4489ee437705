/**
 * `npm run bench`: every measure side by side with its ceiling, in one run, on loopback.
 *
 * Flags: --duration <s> (load per side and measure, default 8), --rounds <n> (the duration is
 * split into n runs per side, the sides' order reversed every round: ceiling and service ABBA,
 * or raw node:http, bare Fastify and service ABC CBA for the public GETs; default 2), --connections
 * <n> (default 50), --warmup <s> (per side, default 2), --soak <s> (default 15; 0 skips),
 * --only <name,...> (currencies, rates-float, rates-fixed, orders-post-pg, orders-get-pg, rates-float-2p,
 * orders-post-pglite, orders-list-pg, soak, webhooks, payouts, stream, tracing, scale), --streams <n> (open status
 * streams, default 10000), --stream-orders <n> (default 1000), --moves <n/s> (default 200), --payouts <n> (payouts per side, default 50),
 * --scale-api <n,...> (API processes per scale configuration, default 1,2,4), --scale-workers <n,...> (default 1,2),
 * --profile (servers run with --cpu-prof and the report adds the
 * top self-time frames of the measured windows; profiled numbers are slower, and written to
 * latest-profile.md instead of latest.md). See bench/README.md.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type { RequestSpec } from 'autocannon';
import { createPartner as createPartnerOver } from '../test/helpers/process/http-client.js';
import { captureOrderSql, pgbenchScript, type OrderSqlCapture } from './capture-sql.js';
import { sameSizeBody, startBareFastify, startRawServer } from './ceilings.js';
import { mergeLoads, percentile, runLoad, type LoadResult } from './load.js';
import { prepareOrderList } from './order-list-measure.js';
import { runPgbench } from './pgbench.js';
import { payoutBench, payoutSection, type PayoutSide } from './payouts.js';
import { webhookBench, webhookSection } from './webhooks.js';
import { tracingBench, tracingSection } from './tracing.js';
import { scaleRun } from './scale.js';
import { streamBench, streamSection } from './stream.js';
import { runPgliteLoop } from './pglite-loop.js';
import { formatSummary, summariseProfile, type Window } from './profile-summary.js';
import { planCpus, pinSelf, PRODUCTION_LIKE_ENV, REPO_ROOT, startServer, type CpuPlan, type RunningServer } from './server.js';

const { values: flags } = parseArgs({
  options: {
    duration: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '2' },
    connections: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '2' },
    soak: { type: 'string', default: '15' },
    only: { type: 'string' },
    streams: { type: 'string', default: '10000' },
    'stream-orders': { type: 'string', default: '1000' },
    moves: { type: 'string', default: '200' },
    payouts: { type: 'string', default: '50' },
    'scale-api': { type: 'string' },
    'scale-workers': { type: 'string' },
    profile: { type: 'boolean', default: false },
  },
});
const DURATION = Number(flags.duration);
const ROUNDS = Math.max(1, Number(flags.rounds));
const RUN_SECONDS = Math.max(1, Math.round(DURATION / ROUNDS));
const CONNECTIONS = Number(flags.connections);
const WARMUP = Number(flags.warmup);
const SOAK = Number(flags.soak);
/** The service's PostgreSQL pool size (src/db/database.ts): pgbench gets as many clients. */
const PG_CLIENTS = 10;
const ONLY = flags.only === undefined ? undefined : new Set(flags.only.split(','));
const RESULTS_DIR = path.join(REPO_ROOT, 'bench', 'results');
const PROFILE_DIR = path.join(RESULTS_DIR, 'profiles');

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);
const mb = (bytes: number) => bytes / 1024 / 1024;
const wanted = (name: string) => ONLY === undefined || ONLY.has(name);
const nowUs = () => Number(process.hrtime.bigint() / 1000n);

/** One side of a comparison. */
interface Side {
  rps: number;
  p50: number;
  p99: number;
  failed: number;
  /** Server CPU per answered request, µs (HTTP sides only: pgbench's work is PostgreSQL's). */
  cpuUsPerRequest?: number;
  /** Cores the server used while loaded. */
  cores?: number;
}

interface Measure {
  name: string;
  measure: string;
  ceilingName: string;
  goal: number;
  app: Side;
  ceiling: Side;
  ratio: number;
  halfRate: { rate: number; achieved: number; p50: number; p99: number; failed: number };
  peakRssMb: number;
  note?: string;
  /** Public GETs only: bare Fastify 5 serving the ceiling's bytes on the same route. */
  floor?: FrameworkFloor;
}

/** What the framework alone costs, measured in the same alternation as the service and raw node:http. */
interface FrameworkFloor {
  fastify: Side;
  /** Bare Fastify req/s / raw node:http req/s. */
  ratioToRaw: number;
  /** Raw node:http CPU µs/req / bare Fastify CPU µs/req (1 = Fastify costs nothing). */
  cpuRatioToRaw: number;
  /** Service req/s / bare Fastify req/s: the part of the gap that is the service's own. */
  serviceRatio: number;
  /** Bare Fastify CPU µs/req / service CPU µs/req. */
  serviceCpuRatio: number;
}

interface Partner {
  apiKey: string;
  keyId: string;
  partnerId: string;
}

/** A partner with the highest budget the schema allows (1,000,000/min), and a key for it. */
async function createPartner(server: RunningServer): Promise<Partner> {
  const { id, apiKey, keyId } = await createPartnerOver(server.url, server.adminToken, { name: 'bench', rate_limit_per_minute: 1_000_000, max_open_orders: 1_000_000 });
  return { apiKey, keyId, partnerId: id };
}

async function fetchBody(url: string, init: RequestInit, status: number): Promise<Buffer> {
  const response = await fetch(url, init);
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status !== status) throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${body.toString('utf8')}`);
  return body;
}

interface HttpTarget {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  requests?: RequestSpec[];
  expectStatus?: number;
}

/** A loaded HTTP process: its CPU clock, and where its measured windows are recorded. */
interface Loaded {
  cpuSeconds: () => number;
  windows?: Window[];
}

/** One saturated run; the process's CPU over it. */
async function loadRun(target: HttpTarget, process: Loaded, seconds: number): Promise<LoadResult & { cpu: number }> {
  const cpuBefore = process.cpuSeconds();
  const start = nowUs();
  const result = await runLoad({ ...target, connections: CONNECTIONS, duration: seconds });
  process.windows?.push([start, nowUs()]);
  return { ...result, cpu: process.cpuSeconds() - cpuBefore };
}

async function warm(target: HttpTarget): Promise<void> {
  if (WARMUP > 0) await runLoad({ ...target, connections: CONNECTIONS, duration: WARMUP });
}

/** Merged runs of one HTTP side. */
function httpSide(runs: (LoadResult & { cpu: number })[], label: string): Side {
  const merged = mergeLoads(runs);
  const cpu = runs.reduce((sum, run) => sum + run.cpu, 0);
  if (merged.failed > 0) log(`  ${label}: ${merged.failed} failed answers ${JSON.stringify(merged.statuses)}`);
  return {
    rps: merged.rps,
    p50: merged.p50,
    p99: merged.p99,
    failed: merged.failed,
    cpuUsPerRequest: merged.ok > 0 ? (cpu * 1e6) / merged.ok : Number.NaN,
    cores: cpu / merged.seconds,
  };
}

/**
 * ROUNDS runs per side, the order reversed every other round (two sides ABBA, three ABC CBA),
 * so a change of machine load during the measure falls on every side alike.
 */
async function alternate(...sides: (() => Promise<void>)[]): Promise<void> {
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) await side();
  }
}

async function halfRate(target: HttpTarget, saturated: number, loaded: Loaded): Promise<Measure['halfRate']> {
  const rate = Math.max(1, Math.round(saturated / 2));
  const start = nowUs();
  const result = await runLoad({ ...target, connections: CONNECTIONS, duration: DURATION, overallRate: rate });
  loaded.windows?.push([start, nowUs()]);
  if (result.rps < rate * 0.9) log(`  half rate: asked ${rate}/s, got ${result.rps.toFixed(0)}/s`);
  return { rate, achieved: result.rps, p50: result.p50, p99: result.p99, failed: result.failed };
}

/** Where each profiled server's measured windows were, for the profile summary. */
const profiled: { label: string; windows: Window[] }[] = [];

async function withServer<T>(
  plan: CpuPlan,
  engine: 'postgres' | 'pglite',
  label: string,
  body: (server: RunningServer, partner: Partner, loaded: Loaded) => Promise<T>,
  processes = 1,
): Promise<T> {
  const server = await startServer({ engine, label, plan, processes, cpuProfDir: flags.profile ? path.join(PROFILE_DIR, label) : undefined });
  const loaded: Loaded = { cpuSeconds: server.cpuSeconds, windows: [] };
  try {
    const partner = await createPartner(server);
    return await body(server, partner, loaded);
  } finally {
    await server.stop();
    if (flags.profile) profiled.push({ label, windows: loaded.windows ?? [] });
  }
}

/**
 * A public GET vs raw node:http serving `ceilingBody`, the key sent on every request; with bare
 * Fastify serving the same bytes on the same route as a third side (the framework floor).
 */
async function publicMeasure(
  plan: CpuPlan,
  name: string,
  measure: string,
  ceilingName: string,
  goal: number,
  pathAndQuery: string,
  ceilingBody: (appBody: Buffer) => Buffer,
  processes = 1,
): Promise<Measure> {
  return withServer(plan, 'postgres', name, async (server, partner, loaded) => {
    const headers = { authorization: `Bearer ${partner.apiKey}` };
    const appBody = await fetchBody(`${server.url}${pathAndQuery}`, { headers }, 200);
    const body = ceilingBody(appBody);
    const raw = await startRawServer(plan, name, body);
    const bare = await startBareFastify(plan, name, body, new URL(pathAndQuery, server.url).pathname).catch(async (error: unknown) => {
      await raw.stop();
      throw error;
    });
    const rawTarget: HttpTarget = { url: `${raw.url}${pathAndQuery}`, headers };
    const bareTarget: HttpTarget = { url: `${bare.url}${pathAndQuery}`, headers };
    const target: HttpTarget = { url: `${server.url}${pathAndQuery}`, headers };
    const rawRuns: (LoadResult & { cpu: number })[] = [];
    const bareRuns: (LoadResult & { cpu: number })[] = [];
    const appRuns: (LoadResult & { cpu: number })[] = [];
    try {
      log(`${name}: ${ROUNDS} × ${RUN_SECONDS} s each of ${ceilingName}, bare Fastify and the service`);
      await warm(rawTarget);
      await warm(bareTarget);
      await warm(target);
      await alternate(
        async () => void rawRuns.push(await loadRun(rawTarget, { cpuSeconds: raw.cpuSeconds }, RUN_SECONDS)),
        async () => void bareRuns.push(await loadRun(bareTarget, { cpuSeconds: bare.cpuSeconds }, RUN_SECONDS)),
        async () => void appRuns.push(await loadRun(target, loaded, RUN_SECONDS)),
      );
    } finally {
      await Promise.all([raw.stop(), bare.stop()]);
    }
    const app = httpSide(appRuns, name);
    const ceiling = httpSide(rawRuns, `${name} ceiling`);
    const fastify = httpSide(bareRuns, `${name} bare Fastify`);
    log(`${name}: service at half rate`);
    const half = await halfRate(target, app.rps, loaded);
    return {
      name,
      measure,
      ceilingName,
      goal,
      app,
      ceiling,
      ratio: app.rps / ceiling.rps,
      halfRate: half,
      peakRssMb: mb(server.memory().peak),
      note: `body ${appBody.length} B`,
      floor: {
        fastify,
        ratioToRaw: fastify.rps / ceiling.rps,
        cpuRatioToRaw: (ceiling.cpuUsPerRequest ?? Number.NaN) / (fastify.cpuUsPerRequest ?? Number.NaN),
        serviceRatio: app.rps / fastify.rps,
        serviceCpuRatio: (fastify.cpuUsPerRequest ?? Number.NaN) / (app.cpuUsPerRequest ?? Number.NaN),
      },
    };
  }, processes);
}

async function currencyIds(server: RunningServer): Promise<{ BTC: string; ETH: string }> {
  const response = await fetch(`${server.url}/admin/v1/currencies`, { headers: { authorization: `Bearer ${server.adminToken}` } });
  const rows = (await response.json()) as { id: string; coin: string; network: string }[];
  const id = (coin: string) => rows.find((row) => row.coin === coin && row.network === coin)?.id ?? '';
  return { BTC: id('BTC'), ETH: id('ETH') };
}

/** pgbench runs merged like HTTP runs. */
function pgbenchSide(runs: Awaited<ReturnType<typeof runPgbench>>[]): Side {
  const latencies = runs.flatMap((run) => run.latencies);
  const transactions = runs.reduce((sum, run) => sum + run.transactions, 0);
  const seconds = runs.reduce((sum, run) => sum + run.seconds, 0);
  const failed = runs.reduce((sum, run) => sum + run.failed, 0);
  if (failed > 0) log(`  pgbench: ${failed} failed transactions`);
  return { rps: transactions / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), failed };
}

/**
 * POST and GET order on PostgreSQL. `processes` 2: the service as WEB_CONCURRENCY=2 (two API
 * processes on one port, unpinned: both cores, which the load generator and PostgreSQL share),
 * its CPU and RSS summed over the primary and its workers; the measures are named `-2p`.
 */
async function ordersPostgres(plan: CpuPlan, capture: OrderSqlCapture, createScript: string, getScript: string, processes = 1): Promise<Measure[]> {
  const suffix = processes === 1 ? '' : `-${processes}p`;
  const shown = processes === 1 ? '' : `, ${processes} processes`;
  return withServer(plan, 'postgres', `orders-pg${suffix}`, async (server, partner, loaded) => {
    const databaseUrl = server.databaseUrl ?? '';
    const headers = { authorization: `Bearer ${partner.apiKey}`, 'content-type': 'application/json' };
    const post: HttpTarget = { url: `${server.url}/api/v1/partner/orders`, method: 'POST', headers, body: capture.body, expectStatus: 201 };
    await fetchBody(post.url, { method: 'POST', headers, body: capture.body }, 201);
    const ids = await currencyIds(server);
    const now = new Date();
    const defines = {
      key_id: partner.keyId,
      partner_id: partner.partnerId,
      currency_from_id: ids.BTC,
      currency_to_id: ids.ETH,
      now: now.toISOString(),
      expires_at: new Date(now.getTime() + 30 * 60_000).toISOString(),
      // The bench partner's own cap (see createPartnerOver above), as the service passes it.
      max_open_orders: '1000000',
    };
    const results: Measure[] = [];
    if (wanted(`orders-post-pg${suffix}`)) {
      log(`orders-post-pg${suffix}: ${ROUNDS} × ${RUN_SECONDS} s each of pgbench (${PG_CLIENTS} clients) and the service`);
      await warm(post);
      const appRuns: (LoadResult & { cpu: number })[] = [];
      const benchRuns: Awaited<ReturnType<typeof runPgbench>>[] = [];
      await alternate(
        async () => void benchRuns.push(await runPgbench({ databaseUrl, scripts: [createScript], clients: PG_CLIENTS, duration: RUN_SECONDS, defines, plan })),
        async () => void appRuns.push(await loadRun(post, loaded, RUN_SECONDS)),
      );
      const app = httpSide(appRuns, `orders-post-pg${suffix}`);
      log(`orders-post-pg${suffix}: service at half rate`);
      const half = await halfRate(post, app.rps, loaded);
      const ceiling = pgbenchSide(benchRuns);
      results.push({
        name: `orders-post-pg${suffix}`,
        measure: `POST /partner/orders (PostgreSQL${shown})`,
        ceilingName: `pgbench, same SQL (${PG_CLIENTS} clients = pool size)`,
        goal: 0.8,
        app,
        ceiling,
        ratio: app.rps / ceiling.rps,
        halfRate: half,
        peakRssMb: mb(server.memory().peak),
      });
    }
    if (wanted(`orders-get-pg${suffix}`)) {
      // 64 orders of this partner, read in turn by the service and by pgbench.
      const orderIds: string[] = [];
      for (let i = 0; i < 64; i++) {
        const order = JSON.parse((await fetchBody(post.url, { method: 'POST', headers, body: capture.body }, 201)).toString('utf8')) as { id: string };
        orderIds.push(order.id);
      }
      const get: HttpTarget = {
        url: server.url,
        headers: { authorization: `Bearer ${partner.apiKey}` },
        requests: orderIds.map((id) => ({ method: 'GET', path: `/api/v1/partner/orders/${id}` })),
      };
      const scripts = await orderGetScripts(getScript, orderIds);
      log(`orders-get-pg${suffix}: ${ROUNDS} × ${RUN_SECONDS} s each of pgbench (${PG_CLIENTS} clients) and the service`);
      await warm(get);
      const appRuns: (LoadResult & { cpu: number })[] = [];
      const benchRuns: Awaited<ReturnType<typeof runPgbench>>[] = [];
      const getDefines = { key_id: partner.keyId, partner_id: partner.partnerId };
      await alternate(
        async () => void benchRuns.push(await runPgbench({ databaseUrl, scripts, clients: PG_CLIENTS, duration: RUN_SECONDS, defines: getDefines, plan })),
        async () => void appRuns.push(await loadRun(get, loaded, RUN_SECONDS)),
      );
      const app = httpSide(appRuns, `orders-get-pg${suffix}`);
      log(`orders-get-pg${suffix}: service at half rate`);
      const half = await halfRate(get, app.rps, loaded);
      const ceiling = pgbenchSide(benchRuns);
      results.push({
        name: `orders-get-pg${suffix}`,
        measure: `GET /partner/orders/{id} (PostgreSQL${shown})`,
        ceilingName: `pgbench, same select (${PG_CLIENTS} clients)`,
        goal: 0.8,
        app,
        ceiling,
        ratio: app.rps / ceiling.rps,
        halfRate: half,
        peakRssMb: mb(server.memory().peak),
      });
    }
    return results;
  }, processes);
}

/** The generated order-get script with each order id filled in: one copy per id, drawn evenly. */
async function orderGetScripts(template: string, orderIds: string[]): Promise<string[]> {
  const text = await readFile(template, 'utf8');
  const dir = path.join(tmpdir(), `bench-order-get-${process.pid}`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  // pgbench takes at most 128 scripts.
  return Promise.all(
    orderIds.slice(0, 100).map(async (id, i) => {
      const file = path.join(dir, `get-${i}.sql`);
      await writeFile(file, text.replace(/:order_id\b/g, `'${id}'`));
      return file;
    }),
  );
}

/**
 * GET /partner/orders on PostgreSQL with 100,000 orders of 10 partners (bench/order-list-measure.ts):
 * four first pages in turn, against pgbench running the same four selects.
 */
async function ordersListPostgres(plan: CpuPlan): Promise<Measure> {
  return withServer(plan, 'postgres', 'orders-list-pg', async (server, partner, loaded) => {
    const databaseUrl = server.databaseUrl ?? '';
    log('orders-list-pg: 100,000 orders of 10 partners');
    const { paths, scripts } = await prepareOrderList(databaseUrl, partner.partnerId);
    const list: HttpTarget = {
      url: server.url,
      headers: { authorization: `Bearer ${partner.apiKey}` },
      requests: paths.map((listPath) => ({ method: 'GET', path: listPath })),
    };
    log(`orders-list-pg: ${ROUNDS} × ${RUN_SECONDS} s each of pgbench (${PG_CLIENTS} clients) and the service`);
    await warm(list);
    const appRuns: (LoadResult & { cpu: number })[] = [];
    const benchRuns: Awaited<ReturnType<typeof runPgbench>>[] = [];
    await alternate(
      async () => void benchRuns.push(await runPgbench({ databaseUrl, scripts, clients: PG_CLIENTS, duration: RUN_SECONDS, defines: {}, plan })),
      async () => void appRuns.push(await loadRun(list, loaded, RUN_SECONDS)),
    );
    const app = httpSide(appRuns, 'orders-list-pg');
    log('orders-list-pg: service at half rate');
    const half = await halfRate(list, app.rps, loaded);
    const ceiling = pgbenchSide(benchRuns);
    return {
      name: 'orders-list-pg',
      measure: 'GET /partner/orders, 20 a page (PostgreSQL, 100,000 orders)',
      ceilingName: `pgbench, same selects (${PG_CLIENTS} clients)`,
      goal: 0.8,
      app,
      ceiling,
      ratio: app.rps / ceiling.rps,
      halfRate: half,
      peakRssMb: mb(server.memory().peak),
      note: 'pages of 20 orders; goal for p99 at half rate: under 20 ms',
    };
  });
}

async function ordersPglite(plan: CpuPlan, capture: OrderSqlCapture): Promise<Measure> {
  return withServer(plan, 'pglite', 'orders-pglite', async (server, partner, loaded) => {
    const headers = { authorization: `Bearer ${partner.apiKey}`, 'content-type': 'application/json' };
    const post: HttpTarget = { url: `${server.url}/api/v1/partner/orders`, method: 'POST', headers, body: capture.body, expectStatus: 201 };
    await fetchBody(post.url, { method: 'POST', headers, body: capture.body }, 201);
    log(`orders-post-pglite: ${ROUNDS} × ${RUN_SECONDS} s each of the raw PGlite loop and the service`);
    await warm(post);
    const appRuns: (LoadResult & { cpu: number })[] = [];
    const loops: Awaited<ReturnType<typeof runPgliteLoop>>[] = [];
    await alternate(
      async () => void loops.push(await runPgliteLoop(plan, capture, RUN_SECONDS)),
      async () => void appRuns.push(await loadRun(post, loaded, RUN_SECONDS)),
    );
    const app = httpSide(appRuns, 'orders-post-pglite');
    log('orders-post-pglite: service at half rate');
    const half = await halfRate(post, app.rps, loaded);
    const latencies = loops.flatMap((loop) => loop.latencies);
    const orders = loops.reduce((sum, loop) => sum + loop.orders, 0);
    const seconds = loops.reduce((sum, loop) => sum + loop.seconds, 0);
    const ceiling: Side = { rps: orders / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), failed: 0 };
    return {
      name: 'orders-post-pglite',
      measure: 'POST /partner/orders (PGlite)',
      ceilingName: 'raw PGlite loop, same statements and rows (1 at a time)',
      goal: 0.6,
      app,
      ceiling,
      ratio: app.rps / ceiling.rps,
      halfRate: half,
      peakRssMb: mb(server.memory().peak),
    };
  });
}

interface Soak {
  seconds: number;
  rps: number;
  startRssMb: number;
  endRssMb: number;
  peakRssMb: number;
  growthMb: number;
  /** Growth over the second half of the soak only (after the heap has settled). */
  secondHalfGrowthMb: number;
  /** The same as a share of the RSS at half time (issue 18: under 5 % over a 10-minute soak). */
  secondHalfGrowthPct: number;
  afterIdleRssMb: number;
  failed: number;
}

/** Mixed saturated traffic for SOAK seconds; RSS sampled every second. */
async function soak(plan: CpuPlan, capture: OrderSqlCapture): Promise<Soak> {
  return withServer(plan, 'postgres', 'soak', async (server, partner) => {
    const auth = `Bearer ${partner.apiKey}`;
    const requests: RequestSpec[] = [
      { method: 'GET', path: '/api/v1/currencies', headers: { authorization: auth } },
      { method: 'GET', path: '/api/v1/partner/rates?coin_from=BTC&coin_to=ETH&amount=0.5', headers: { authorization: auth } },
      { method: 'GET', path: '/api/v1/partner/rates?coin_from=BTC&coin_to=ETH&amount=0.5&rate_type=fixed', headers: { authorization: auth } },
      { method: 'POST', path: '/api/v1/partner/orders', headers: { authorization: auth, 'content-type': 'application/json' }, body: capture.body },
    ];
    // Warm-up first, so start-up allocation is not counted as growth.
    await runLoad({ url: server.url, connections: CONNECTIONS, duration: Math.max(WARMUP, 2), requests });
    const samples: number[] = [];
    const start = server.memory().rss;
    const timer = setInterval(() => samples.push(server.memory().rss), 1000);
    log(`soak: ${SOAK} s of mixed traffic`);
    let result: LoadResult;
    try {
      result = await runLoad({ url: server.url, connections: CONNECTIONS, duration: SOAK, requests });
    } finally {
      clearInterval(timer);
    }
    const end = server.memory().rss;
    await sleep(2000);
    const idle = server.memory().rss;
    const middle = samples[Math.floor(samples.length / 2)] ?? start;
    // The mix answers 200 and 201; anything else failed.
    const answered = Object.values(result.statuses).reduce((a, b) => a + b, 0);
    const failed = answered - (result.statuses['200'] ?? 0) - (result.statuses['201'] ?? 0);
    return {
      seconds: SOAK,
      rps: answered / result.seconds,
      startRssMb: mb(start),
      endRssMb: mb(end),
      peakRssMb: mb(server.memory().peak),
      growthMb: mb(end - start),
      secondHalfGrowthMb: mb(end - middle),
      secondHalfGrowthPct: middle > 0 ? ((end - middle) / middle) * 100 : Number.NaN,
      afterIdleRssMb: mb(idle),
      failed,
    };
  });
}

const fmt = (value: number | undefined, digits = 0) => (value !== undefined && Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const ms = (value: number) => (Number.isFinite(value) ? (value < 10 ? value.toFixed(2) : value.toFixed(1)) : 'n/a');

/** Read before this process pins itself (nproc follows the affinity mask). */
const CPU_MODEL = (() => {
  const model = spawnSync('sh', ['-c', "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"], { encoding: 'utf8' }).stdout?.trim();
  const cpus = spawnSync('nproc', { encoding: 'utf8' }).stdout?.trim();
  return `${model || 'unknown cpu'} (${cpus ?? '?'} cpus)`;
})();

function loadAverage(): string {
  try {
    return spawnSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).stdout.split(' ').slice(0, 3).join(' ');
  } catch {
    return 'n/a';
  }
}

function report(plan: CpuPlan, measures: Measure[], soakResult: Soak | undefined, started: Date, loadBefore: string): string {
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

async function profileSection(): Promise<string> {
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

async function main(): Promise<void> {
  const started = new Date();
  const loadBefore = loadAverage();
  const plan = planCpus();
  log(plan.note);
  await mkdir(RESULTS_DIR, { recursive: true });
  if (flags.profile) {
    await rm(PROFILE_DIR, { recursive: true, force: true });
    await mkdir(PROFILE_DIR, { recursive: true });
  }

  // The signer's bench runs first, in this process (the loop is what is measured), before the
  // process is pinned to the load generator's core.
  const payouts: PayoutSide[] | undefined = wanted('payouts') ? await payoutBench(Number(flags.payouts), log) : undefined;
  if (ONLY !== undefined && [...ONLY].every((name) => name === 'payouts')) {
    const text = payouts === undefined ? '' : payoutSection(payouts);
    console.log(text);
    const stamp = started.toISOString().replace(/[:.]/g, '-');
    await writeFile(path.join(RESULTS_DIR, `${stamp}.json`), JSON.stringify({ plan, flags, payouts }, null, 2));
    await writeFile(path.join(RESULTS_DIR, 'latest-payouts.md'), `# Payouts bench, ${started.toISOString()}\n${text}`);
    log(`written bench/results/latest-payouts.md and bench/results/${stamp}.json`);
    return;
  }
  // The status streams need no SQL capture: alone, they report on their own.
  const stream = wanted('stream')
    ? await streamBench(plan, { streams: Number(flags.streams), orders: Number(flags['stream-orders']), movesPerSecond: Number(flags.moves), seconds: DURATION }, log)
    : undefined;
  if (ONLY !== undefined && [...ONLY].every((name) => name === 'stream')) {
    const text = stream === undefined ? '' : streamSection(stream);
    console.log(text);
    const stamp = started.toISOString().replace(/[:.]/g, '-');
    await writeFile(path.join(RESULTS_DIR, `${stamp}.json`), JSON.stringify({ plan, flags, stream }, null, 2));
    await writeFile(path.join(RESULTS_DIR, 'latest-stream.md'), `# Status stream bench, ${started.toISOString()}\n${text}`);
    log(`written bench/results/latest-stream.md and bench/results/${stamp}.json`);
    return;
  }

  // Tracing on against off needs no SQL capture either: alone, it reports on its own.
  if (ONLY !== undefined && [...ONLY].every((name) => name === 'tracing')) {
    pinSelf(plan);
    const text = tracingSection(await tracingBench(plan, DURATION, ROUNDS * 2, CONNECTIONS, log));
    console.log(text);
    await writeFile(path.join(RESULTS_DIR, 'latest-tracing.md'), `# Tracing bench, ${started.toISOString()}\n${text}`);
    log('written bench/results/latest-tracing.md');
    return;
  }

  // Scale-out alone: its own servers, workers and report (bench/scale.ts).
  if (ONLY !== undefined && [...ONLY].every((name) => name === 'scale')) {
    await scaleRun(plan, { flags, duration: DURATION, warmup: WARMUP, connections: CONNECTIONS, resultsDir: RESULTS_DIR, started, log });
    return;
  }

  log('capturing the SQL of one order creation and one order read');
  const capture = await captureOrderSql();
  const createScript = path.join(REPO_ROOT, 'bench', 'order-create.sql');
  const getScript = path.join(REPO_ROOT, 'bench', 'order-get.sql');
  await writeFile(createScript, pgbenchScript(capture.create, 'POST /api/v1/partner/orders'));
  await writeFile(getScript, pgbenchScript(capture.get, 'GET /api/v1/partner/orders/{id}; bench/run.ts writes one copy per read order with :order_id filled in'));
  // The capture ran in this process; from here on it only generates load, on its own core.
  pinSelf(plan);

  const measures: Measure[] = [];
  const rates = '/api/v1/partner/rates?coin_from=BTC&coin_to=ETH&amount=0.5';
  if (wanted('currencies')) {
    measures.push(await publicMeasure(plan, 'currencies', 'GET /currencies', 'raw node:http, same bytes', 0.9, '/api/v1/currencies', (body) => body));
  }
  if (wanted('rates-float')) {
    measures.push(await publicMeasure(plan, 'rates-float', 'GET /partner/rates (float)', 'raw node:http, same-size body', 0.8, rates, (body) => sameSizeBody(body.length)));
  }
  if (wanted('rates-fixed')) {
    measures.push(
      await publicMeasure(plan, 'rates-fixed', 'GET /partner/rates (fixed)', 'raw node:http, same-size body', 0.8, `${rates}&rate_type=fixed`, (body) =>
        sameSizeBody(body.length),
      ),
    );
  }
  if (wanted('rates-float-2p')) {
    // WEB_CONCURRENCY=2 against the same ceiling: what a second API process buys the quote path.
    measures.push(
      await publicMeasure(plan, 'rates-float-2p', 'GET /partner/rates (float), 2 processes', 'raw node:http, same-size body', 0.8, rates, (body) => sameSizeBody(body.length), 2),
    );
  }
  if (wanted('orders-post-pg') || wanted('orders-get-pg')) measures.push(...(await ordersPostgres(plan, capture, createScript, getScript)));
  if (wanted('orders-post-pg-2p') || wanted('orders-get-pg-2p')) measures.push(...(await ordersPostgres(plan, capture, createScript, getScript, 2)));
  if (wanted('orders-post-pglite')) measures.push(await ordersPglite(plan, capture));
  if (wanted('orders-list-pg')) measures.push(await ordersListPostgres(plan));
  const soakResult = SOAK > 0 && wanted('soak') ? await soak(plan, capture) : undefined;

  const webhooks = wanted('webhooks') ? await webhookBench(plan, capture.body, DURATION, Math.min(CONNECTIONS, 16), log) : undefined;
  const tracing = wanted('tracing') ? await tracingBench(plan, DURATION, ROUNDS * 2, CONNECTIONS, log) : undefined;
  let text = report(plan, measures, soakResult, started, loadBefore);
  if (webhooks !== undefined) text += webhookSection(webhooks);
  if (tracing !== undefined) text += tracingSection(tracing);
  if (payouts !== undefined) text += payoutSection(payouts);
  if (stream !== undefined) text += streamSection(stream);
  if (flags.profile) text += await profileSection();
  console.log(text);
  const stamp = started.toISOString().replace(/[:.]/g, '-');
  await writeFile(path.join(RESULTS_DIR, `${stamp}.json`), JSON.stringify({ plan, flags, measures, soak: soakResult, webhooks, payouts, stream, tracing }, null, 2));
  const out = flags.profile ? 'latest-profile.md' : 'latest.md';
  await writeFile(path.join(RESULTS_DIR, out), text);
  log(`written bench/results/${out} and bench/results/${stamp}.json`);
}

await main();
