/**
 * What `npm run bench` measures: each measure runs the service and its ceiling side by side
 * (bench/run-options.ts sets the durations and rounds) and answers figures; the report
 * (bench/report.ts) writes them out.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RequestSpec } from 'autocannon';
import { variableSchema } from '../src/config/schema.js';
import { createPartner as createPartnerOver } from '../test/helpers/process/http-client.js';
import type { OrderSqlCapture } from './capture-sql.js';
import { startBareFastify, startRawServer } from './ceilings.js';
import { mergeLoads, percentile, runLoad, type LoadResult } from './load.js';
import { prepareOrderList } from './order-list-measure.js';
import { runPgbench } from './pgbench.js';
import { runPgliteLoop } from './pglite-loop.js';
import type { Window } from './profile-summary.js';
import { CONNECTIONS, DURATION, flags, log, mb, nowUs, PG_CLIENTS, PROFILE_DIR, ROUNDS, RUN_SECONDS, SOAK, WARMUP, wanted } from './run-options.js';
import { startServer, type CpuPlan, type RunningServer } from './server.js';

/** One side of a comparison. */
export interface Side {
  rps: number;
  p50: number;
  p99: number;
  failed: number;
  /** Server CPU per answered request, µs (HTTP sides only: pgbench's work is PostgreSQL's). */
  cpuUsPerRequest?: number;
  /** Cores the server used while loaded. */
  cores?: number;
}

export interface Measure {
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
  /** After the measure, the order read cache filled to its size (`fillOrderCache`): what the server holds then. */
  fullCache?: FullCache;
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

/** The server's default ORDER_CACHE_SIZE: the bench starts it without the variable, as `npm start` does. */
const ORDER_CACHE_SIZE = Number(variableSchema('ORDER_CACHE_SIZE').default);

export interface FullCache {
  /** `order_read_cache_orders` from /metrics once filled. */
  orders: number;
  rssMb: number;
  peakRssMb: number;
}

/**
 * Fills the order read cache of a one-process server to its size, as a day of wallets polling
 * as many orders would: orders are made until the partner has ORDER_CACHE_SIZE of them (`known`
 * are some it has), each is read once (a miss: read from the database, then kept). Reports the
 * cache's count from /metrics and the server's RSS then, the figure the RSS bars ask for.
 */
async function fillOrderCache(label: string, server: RunningServer, partner: Partner, body: string, known: string[]): Promise<FullCache> {
  const headers = { authorization: `Bearer ${partner.apiKey}`, 'content-type': 'application/json' };
  const ids = [...known];
  const parallel = async (count: number, one: (i: number) => Promise<void>): Promise<void> => {
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < count) await one(next++);
    }));
  };
  log(`${label}: filling the order read cache (${ORDER_CACHE_SIZE} orders)`);
  await parallel(Math.max(0, ORDER_CACHE_SIZE - ids.length), async () => {
    const order = JSON.parse((await fetchBody(`${server.url}/api/v1/partner/orders`, { method: 'POST', headers, body }, 201)).toString('utf8')) as { id: string };
    ids.push(order.id);
  });
  await parallel(ids.length, async (i) => {
    await fetchBody(`${server.url}/api/v1/partner/orders/${ids[i]}`, { headers: { authorization: headers.authorization } }, 200);
  });
  const metrics = (await fetchBody(`${server.url}/metrics`, { headers: { authorization: `Bearer ${server.adminToken}` } }, 200)).toString('utf8');
  const orders = Number(/^order_read_cache_orders(?:\{[^}]*\})? (\d+)/m.exec(metrics)?.[1] ?? 'NaN');
  const memory = server.memory();
  return { orders, rssMb: mb(memory.rss), peakRssMb: mb(memory.peak) };
}

/** Where each profiled server's measured windows were, for the profile summary. */
export const profiled: { label: string; windows: Window[] }[] = [];

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
export async function publicMeasure(
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
export async function ordersPostgres(plan: CpuPlan, capture: OrderSqlCapture, createScript: string, getScript: string, processes = 1): Promise<Measure[]> {
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
        // Each of two processes keeps a cache of its own, filled by whichever answers: one process only.
        ...(processes === 1 ? { fullCache: await fillOrderCache('orders-get-pg', server, partner, capture.body, orderIds) } : {}),
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
export async function ordersListPostgres(plan: CpuPlan): Promise<Measure> {
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

export async function ordersPglite(plan: CpuPlan, capture: OrderSqlCapture): Promise<Measure> {
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
      fullCache: await fillOrderCache('orders-post-pglite', server, partner, capture.body, []),
    };
  });
}

export interface Soak {
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
export async function soak(plan: CpuPlan, capture: OrderSqlCapture): Promise<Soak> {
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

