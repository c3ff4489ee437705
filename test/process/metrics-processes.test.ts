// test-engines: postgres (scripts/run-tests.ts): several processes share one PostgreSQL; on PGlite the whole file skips.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { killAll } from '../helpers/process/managed-process.js';
import { freePort, waitFor } from '../helpers/process/waits.js';
import { startServer, startWorker, type ApiServer } from '../helpers/process/app-server.js';
import { createTestDatabase, databaseEnv, newDataDir, testEngine, type TestDatabase } from '../helpers/test-database.js';

/**
 * Metrics of several processes (issue 36.3), PostgreSQL pass only (several processes need it):
 * - WEB_CONCURRENCY=2: every scrape, whichever API process the primary hands its connection to,
 *   answers the cluster's total (it answered its own process's count, so Prometheus saw resets).
 * - `npm run worker` serves its own /metrics on WORKER_METRICS_PORT under the METRICS_TOKEN rule.
 * Both carry build_info and the pool's gauges.
 */
const engine = testEngine();

/** One request on a connection of its own (no keep-alive), so the cluster hands each to a process anew. */
function fresh(url: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers: { connection: 'close', ...headers }, timeout: 20_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('timeout', () => req.destroy(new Error(`${url} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

/** The value of one sample line (`name{labels}` exactly as exposed), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((row) => row.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics of several processes', { timeout: 240_000, skip: engine !== 'postgres' && 'several processes need PostgreSQL: PostgreSQL pass' }, () => {
  let database: TestDatabase;
  const dataDir = newDataDir('epa-metrics-');
  const base = (): Record<string, string> => ({
    ...databaseEnv(database),
    SECRETS_KEY: randomBytes(32).toString('hex'),
    ADMIN_TOKEN: randomBytes(32).toString('base64url'),
    LOG_LEVEL: 'info',
  });

  before(async () => {
    database = await createTestDatabase('postgres');
  });

  after(async () => {
    await killAll();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('WEB_CONCURRENCY=2: every scrape answers the whole cluster, so counters never go back', async () => {
    const server: ApiServer = await startServer({ name: 'metrics-cluster', env: { ...base(), WORKER: 'off', WEB_CONCURRENCY: '2' }, dataDir, timeoutMs: 120_000 });
    // Both API processes up: their start lines (one each).
    await waitFor('two API processes', () => server.tail(300).split('\n').filter((line) => line.includes('exchange partner API ready')).length >= 2, { timeoutMs: 120_000 });
    const REQUESTS = 12;
    for (let i = 0; i < REQUESTS; i++) assert.equal((await fresh(`${server.url}/api/v1/currencies`)).status, 200);
    const series = 'http_requests_total{method="GET",route="/api/v1/currencies",status="200"}';
    const seen: number[] = [];
    for (let i = 0; i < 4; i++) {
      const scrape = await fresh(`${server.url}/metrics`);
      assert.equal(scrape.status, 200, scrape.text);
      seen.push(sample(scrape.text, series) ?? -1);
      if (i === 0) {
        assert.match(scrape.text, /^build_info\{version="[^"]+",node_version="[^"]+"\} 1$/m, 'build_info, once');
        assert.ok((sample(scrape.text, 'db_pool_max_connections') ?? 0) >= 20, `two pools of 10: ${scrape.text.match(/^db_pool.*$/gm)?.join('; ')}`);
        assert.notEqual(sample(scrape.text, 'db_pool_connections{state="idle"}'), undefined);
      }
    }
    assert.deepEqual(seen, [REQUESTS, REQUESTS, REQUESTS, REQUESTS], `each scrape counted every process's requests: ${seen.join(', ')}`);
    await server.stop(15_000);
  });

  it('the worker serves its metrics on WORKER_METRICS_PORT, under the METRICS_TOKEN rule', async () => {
    const port = await freePort();
    const token = randomBytes(32).toString('base64url');
    const worker = await startWorker('metrics-worker', { ...base(), WORKER_METRICS_PORT: String(port), METRICS_TOKEN: token, WORKER_INTERVAL_MS: '200' });
    const url = `http://127.0.0.1:${port}/metrics`;
    const scrape = await waitFor('a scrape with the worker lag', async () => {
      const res = await fresh(url);
      return res.status === 200 && /^worker_lag_seconds /m.test(res.text) ? res : undefined;
    });
    assert.match(scrape.text, /^build_info\{version="[^"]+",node_version="[^"]+"\} 1$/m);
    assert.equal(sample(scrape.text, 'db_pool_max_connections'), 10);
    assert.match(scrape.text, /^webhook_queue_depth /m);

    const relayed = await fresh(url, { 'x-forwarded-for': '198.51.100.1' });
    assert.equal(relayed.status, 401, 'a relayed scrape is not local');
    assert.equal((JSON.parse(relayed.text) as { code: string }).code, 'unauthorized');
    assert.equal((await fresh(url, { authorization: `Bearer ${randomBytes(32).toString('base64url')}` })).status, 401);
    assert.equal((await fresh(url, { authorization: `Bearer ${token}`, 'x-forwarded-for': '198.51.100.1' })).status, 200, 'the token is enough');
    assert.equal((await fresh(`http://127.0.0.1:${port}/other`)).status, 404);
    await worker.stop();
  });
});
