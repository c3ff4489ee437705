import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { after, afterEach, before, describe, it } from 'node:test';
import { killAll } from '../helpers/process/managed-process.js';
import { waitFor } from '../helpers/process/waits.js';
import { TcpProxy } from '../helpers/process/tcp-proxy.js';
import { startServer, type ApiServer } from '../helpers/process/app-server.js';
import { createPartner, http, type HttpResult } from '../helpers/process/http-client.js';
import { startRedisServer, type RedisServer } from '../helpers/process/redis-server.js';
import { depositWalletEnv, ORDER_MIX } from '../helpers/process/order-mix.js';
import { redisServerSkip } from '../helpers/requirements.js';
import { adminDatabaseUrl, createTestDatabase, databaseEnv, newDataDir, testEngine, type TestDatabase } from '../helpers/test-database.js';

/**
 * A real server process whose dependencies fail under it:
 * - Redis (the shared rate limiter) stops: requests keep being answered, quickly, unchecked
 *   (fail open), and counting resumes when Redis is back. On both engines.
 * - PostgreSQL becomes unreachable (a TCP proxy in front of it stops accepting and cuts its
 *   connections): requests are answered 503 {detail} fast instead of hanging, /readyz says
 *   not ready, and everything recovers without a restart when the proxy is back on the same
 *   port. PostgreSQL pass only (PGlite runs inside the process: it cannot become unreachable).
 */
const engine = testEngine();
/** Bound for any answer while a dependency is down (the DB pool gives up connecting after 2 s). */
const FAST_FAIL_MS = 3000;
/** Bound for any answer while Redis is down (the limiter waits at most 100 ms; the machine is shared). */
const REDIS_DOWN_MS = 1500;
/** Bound while PostgreSQL hangs: the pool's query_timeout (15 s) plus scheduling slack. */
const STALL_BOUND_MS = 18_000;

const baseEnv = (): Record<string, string> => ({
  SECRETS_KEY: randomBytes(32).toString('hex'),
  ADMIN_TOKEN: randomBytes(32).toString('base64url'),
  WORKER: 'off',
  LOG_LEVEL: 'warn',
});

const dirs: string[] = [];
const dataDir = (): string => {
  const dir = newDataDir('epa-faults-');
  dirs.push(dir);
  return dir;
};

after(async () => {
  await killAll();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function assertJsonError(res: HttpResult, status: number): { detail: string; code?: string } {
  assert.equal(res.status, status, res.text);
  const body = JSON.parse(res.text) as { detail?: unknown; code?: string };
  assert.equal(typeof body.detail, 'string', `a ${status} carries {detail}: ${res.text}`);
  return body as { detail: string; code?: string };
}

describe(`Redis stops under a running server (${engine})`, { timeout: 120_000, skip: redisServerSkip() }, () => {
  let redis: RedisServer;
  let server: ApiServer;
  let database: TestDatabase | undefined;
  let headers: Record<string, string>;

  before(async () => {
    redis = await startRedisServer();
    const env = baseEnv();
    let extra: Record<string, string> = {};
    if (engine === 'postgres') {
      database = await createTestDatabase('postgres');
      extra = { ...databaseEnv(database), ...depositWalletEnv() };
    }
    server = await startServer({ name: 'redis-faults', env: { ...env, ...extra, REDIS_URL: redis.url }, dataDir: dataDir() });
    const partner = await createPartner(server.url, env.ADMIN_TOKEN ?? '', { rate_limit_per_minute: 10_000 });
    headers = { authorization: `Bearer ${partner.apiKey}` };
  });

  after(async () => {
    await server?.stop();
    await redis?.stop();
    await database?.drop();
  });

  it('counts in Redis, keeps answering within bounds while Redis is gone, and counts again when it is back', async () => {
    const create = () => http(server.url, 'POST', '/api/v1/partner/orders', { headers, json: ORDER_MIX[0], timeoutMs: 10_000 });

    // Counted in Redis. On a loaded machine the first request can outwait the limiter's 100 ms and
    // pass unchecked (the limiter then skips Redis for a second): that is waited out.
    const remainingBefore = await waitFor(
      'the limiter to count in Redis',
      async () => {
        const up = await create();
        assert.equal(up.status, 201, up.text);
        const remaining = up.headers.get('ratelimit-remaining');
        return remaining === null ? undefined : Number(remaining);
      },
      { timeoutMs: 10_000, intervalMs: 200 },
    );
    assert.ok(remainingBefore > 0 && remainingBefore < 10_000, 'the request was counted in Redis');

    await redis.kill9();

    // Every kind of request goes on being answered, each within the bound. The process first
    // spends the block of its budget it leased from Redis (docs/adr/0062-rate-limit-leases.md: a
    // budget of 10,000 a minute is leased 100 at a time), counted in-process; past it, the lease
    // Redis cannot give lets requests through unchecked (fail open). Sent until a few have been.
    const latencies: number[] = [];
    let unchecked = 0;
    let created: { id: string } | undefined;
    const deadline = Date.now() + 30_000;
    for (let round = 0; Date.now() < deadline && round < 400 && unchecked < 3; round++) {
      const res = round % 3 === 0 ? await create() : await http(server.url, 'GET', created === undefined ? '/api/v1/partner/account' : `/api/v1/partner/orders/${created.id}`, { headers, timeoutMs: 10_000 });
      latencies.push(res.ms);
      assert.ok(res.status === 200 || res.status === 201, `${res.status} ${res.text}`);
      if (res.status === 201) created = JSON.parse(res.text) as { id: string };
      if (res.headers.get('ratelimit-remaining') === null) unchecked += 1;
      // The budget is still announced: the key's (10,000), or the partner's (two keys' worth)
      // while only the partner's block still counts.
      assert.ok(['10000', '20000'].includes(res.headers.get('ratelimit-limit') ?? ''), `the budget is still announced: ${res.headers.get('ratelimit-limit')}`);
    }
    const slowest = Math.max(...latencies);
    assert.ok(latencies.length >= 5, `only ${latencies.length} requests`);
    assert.ok(slowest < REDIS_DOWN_MS, `slowest answer with Redis down took ${Math.round(slowest)} ms`);
    assert.ok(unchecked > 0, 'requests passed unchecked (fail open) while Redis was down');
    const ready = await http(server.url, 'GET', '/readyz');
    assert.equal(ready.status, 200, 'a rate limiter outage does not make the API unready');

    // Redis back on the same port: counting resumes without a restart.
    redis = await startRedisServer(redis.port);
    const counted = await waitFor(
      'the limiter to count again',
      async () => {
        const res = await http(server.url, 'GET', '/api/v1/partner/account', { headers });
        assert.equal(res.status, 200);
        const remaining = res.headers.get('ratelimit-remaining');
        return remaining === null ? undefined : Number(remaining);
      },
      { timeoutMs: 10_000, intervalMs: 200 },
    );
    // A fresh Redis has forgotten the old window: the budget starts over.
    assert.ok(counted > 0);
    console.log(`# Redis down: ${latencies.length} requests, slowest ${Math.round(slowest)} ms, ${unchecked} unchecked; counting again after restart`);
  });
});

describe('PostgreSQL becomes unreachable under a running server', { timeout: 120_000, skip: engine !== 'postgres' && 'PGlite runs inside the server process and cannot become unreachable: runs on the PostgreSQL pass' }, () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let server: ApiServer;
  let headers: Record<string, string>;
  let orderId: string;
  let orderBody: string;

  before(async () => {
    database = await createTestDatabase('postgres');
    const real = new URL(database.url ?? '');
    const admin = new URL(adminDatabaseUrl());
    proxy = new TcpProxy({ host: admin.hostname, port: Number(admin.port || 5432) });
    await proxy.up();
    const viaProxy = new URL(real);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const env = baseEnv();
    server = await startServer({
      name: 'db-faults',
      // The production default: a stalled server must fail a new connection within 2 s.
      env: { ...env, DATABASE_URL: viaProxy.toString(), DATABASE_CONNECT_TIMEOUT_MS: '2000', ...depositWalletEnv() },
      dataDir: dataDir(),
    });
    const partner = await createPartner(server.url, env.ADMIN_TOKEN ?? '');
    headers = { authorization: `Bearer ${partner.apiKey}` };
    const order = await http(server.url, 'POST', '/api/v1/partner/orders', { headers, json: ORDER_MIX[2] });
    assert.equal(order.status, 201, order.text);
    orderBody = order.text;
    orderId = (JSON.parse(order.text) as { id: string }).id;
  });

  // A failed test must not leave PostgreSQL unreachable for the next one.
  afterEach(async () => {
    proxy.resume();
    await proxy.up();
  });

  after(async () => {
    await server?.stop();
    await proxy?.down();
    await database?.drop();
  });

  it('answers 503 {detail} fast while it is gone, is not ready, and recovers without a restart', async () => {
    const pid = server.pid;
    assert.equal((await http(server.url, 'GET', '/readyz')).status, 200);

    await proxy.down();

    // Several at once: none may hang (each is bounded, and the bound is asserted).
    const [read1, create, account, readyz, read2] = await Promise.all([
      http(server.url, 'GET', `/api/v1/partner/orders/${orderId}`, { headers, timeoutMs: 20_000 }),
      http(server.url, 'POST', '/api/v1/partner/orders', { headers, json: ORDER_MIX[0], timeoutMs: 20_000 }),
      http(server.url, 'GET', '/api/v1/partner/account', { headers, timeoutMs: 20_000 }),
      http(server.url, 'GET', '/readyz', { timeoutMs: 20_000 }),
      http(server.url, 'GET', `/api/v1/partner/orders/${orderId}`, { headers, timeoutMs: 20_000 }),
    ]);
    for (const res of [read1, create, read2]) {
      assert.ok(res.ms < FAST_FAIL_MS, `answered after ${Math.round(res.ms)} ms: ${res.text}`);
      assertJsonError(res, 503);
    }
    // Who the key belongs to may be answered from the process's key cache: 200 or 503, fast.
    assert.ok(account.ms < FAST_FAIL_MS, `/partner/account took ${Math.round(account.ms)} ms`);
    if (account.status !== 200) assertJsonError(account, 503);
    assert.ok(readyz.ms < FAST_FAIL_MS, `/readyz took ${Math.round(readyz.ms)} ms`);
    const notReady = assertJsonError(readyz, 503) as { detail: string; ready?: boolean };
    assert.equal(notReady.ready, false);

    // Again, now that the pool has seen the failure: still fast, still 503, never a 500.
    for (let i = 0; i < 3; i++) {
      const res = await http(server.url, 'GET', `/api/v1/partner/orders/${orderId}`, { headers, timeoutMs: 20_000 });
      assert.ok(res.ms < FAST_FAIL_MS, `answered after ${Math.round(res.ms)} ms`);
      assertJsonError(res, 503);
    }
    const live = await http(server.url, 'GET', '/healthz');
    assert.equal(live.status, 200, 'the process itself is alive (liveness is not readiness)');

    // Back on the same port: ready again, reads and writes work, same process.
    await proxy.up();
    await waitFor('/readyz to be 200 again', async () => (await http(server.url, 'GET', '/readyz', { timeoutMs: 5000 })).status === 200, {
      timeoutMs: 15_000,
      intervalMs: 200,
    });
    const read = await http(server.url, 'GET', `/api/v1/partner/orders/${orderId}`, { headers });
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(JSON.parse(read.text), JSON.parse(orderBody));
    const created = await http(server.url, 'POST', '/api/v1/partner/orders', { headers, json: ORDER_MIX[3] });
    assert.equal(created.status, 201, created.text);
    assert.equal(server.pid, pid);
    assert.ok(server.running, 'recovered without a restart');
  });

  it('answers 503 {detail}, never 500 and never unbounded, when PostgreSQL stops answering, and recovers', async () => {
    // A hung server or a partition without resets: connections stay open, nothing comes back.
    // A request on an already open pooled connection waits for the pool's query_timeout (15 s,
    // src/db/database.ts); one that needs a new connection for connectionTimeoutMillis (2 s).
    await waitFor('/readyz 200', async () => (await http(server.url, 'GET', '/readyz')).status === 200, { timeoutMs: 10_000 });
    proxy.stall();
    const calls = await Promise.all([
      http(server.url, 'GET', `/api/v1/partner/orders/${orderId}`, { headers, timeoutMs: 30_000 }),
      http(server.url, 'GET', '/api/v1/partner/account', { headers, timeoutMs: 30_000 }),
      http(server.url, 'POST', '/api/v1/partner/orders', { headers, json: ORDER_MIX[1], timeoutMs: 30_000 }),
      http(server.url, 'GET', '/readyz', { timeoutMs: 30_000 }),
    ]);
    for (const [i, res] of calls.entries()) {
      assert.ok(res.ms < STALL_BOUND_MS, `answered after ${Math.round(res.ms)} ms`);
      // /partner/account (i = 1) may come from the key cache without touching the database.
      if (i !== 1 || res.status !== 200) assertJsonError(res, 503);
    }
    assert.ok(calls[3].ms < FAST_FAIL_MS, '/readyz bounds its own check');
    proxy.resume();
    await waitFor('/readyz to be 200 again', async () => (await http(server.url, 'GET', '/readyz', { timeoutMs: 5000 })).status === 200, {
      timeoutMs: 20_000,
      intervalMs: 200,
    });
    const read = await waitFor('the order to be readable again', async () => {
      const res = await http(server.url, 'GET', `/api/v1/partner/orders/${orderId}`, { headers, timeoutMs: 20_000 });
      return res.status === 200 ? res : undefined;
    }, { timeoutMs: 40_000, intervalMs: 200 });
    assert.deepEqual(JSON.parse(read.text), JSON.parse(orderBody));
    console.log(`# PostgreSQL stalled: ${calls.map((c) => `${c.status} in ${Math.round(c.ms)} ms`).join(', ')}`);
  });
});
