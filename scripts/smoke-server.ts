/**
 * `node --import tsx scripts/smoke-server.ts`: the service builds, starts and answers on the
 * Node.js that runs this script. It builds dist/ and starts dist/server.js as `npm start` does
 * (its NODE_OPTIONS, embedded PGlite, the static price source) with the same node, a temporary
 * DATA_DIR and PORT=0, then asks /healthz, /api/v1/currencies and a float rate, and stops the
 * server (SIGTERM, then SIGKILL), leaving no process and no directory behind (dist/ stays, as
 * after `npm start`). Exit 0 when every answer is as expected.
 *
 * .ci/run runs it under Node.js 24 (the registry's `node` package) while the machine keeps its
 * own node, so a break on an LTS the project supports (package.json `engines`) is caught.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildServer, DIST_DIR, startServer } from '../test/helpers/process/app-server.js';
import { http } from '../test/helpers/process/http-client.js';
import { killAll } from '../test/helpers/process/managed-process.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'epa-smoke-'));
const started = performance.now();
let ok = false;
try {
  buildServer(DIST_DIR);
  const server = await startServer({ name: 'smoke', dataDir, env: { WORKER: 'off', LOG_LEVEL: 'warn' }, timeoutMs: 120_000, compiledDir: DIST_DIR });
  console.log(`node ${process.version}: server listening at ${server.url} after ${Math.round(performance.now() - started)} ms`);

  const health = await http(server.url, 'GET', '/healthz');
  assert.equal(health.status, 200, `/healthz: ${health.text}`);
  console.log(`GET /healthz → ${health.status}`);

  const currencies = await http(server.url, 'GET', '/api/v1/currencies');
  assert.equal(currencies.status, 200, `/api/v1/currencies: ${currencies.text}`);
  const list = JSON.parse(currencies.text) as unknown[];
  assert.ok(Array.isArray(list) && list.length > 0, `/api/v1/currencies: a non-empty list, got ${currencies.text.slice(0, 200)}`);
  console.log(`GET /api/v1/currencies → ${currencies.status}, ${list.length} currencies`);

  const rateUrl = '/api/v1/partner/rates?coin_from=BTC&coin_to=ETH';
  const rate = await http(server.url, 'GET', rateUrl);
  assert.equal(rate.status, 200, `${rateUrl}: ${rate.text}`);
  assert.match(rate.text, /"rate"\s*:\s*"?\d/, `${rateUrl}: a rate, got ${rate.text.slice(0, 200)}`);
  console.log(`GET ${rateUrl} → ${rate.status} ${rate.text.slice(0, 120)}`);

  await server.stop(10_000);
  assert.equal(server.running, false, 'the server stopped');
  ok = true;
} catch (error) {
  console.error(`smoke test failed on node ${process.version}: ${(error as Error).message}`);
} finally {
  await killAll();
  rmSync(dataDir, { recursive: true, force: true });
}
console.log(ok ? `smoke test passed on node ${process.version}` : `smoke test FAILED on node ${process.version}`);
process.exit(ok ? 0 : 1);
