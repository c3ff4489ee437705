/**
 * `node --import tsx bench/heap-probe.ts [--rounds 4] [--seconds 8] '<NODE_OPTIONS>' ...`: the
 * compiled server's peak RSS, CPU per request and V8's GC pause time under the bench's order load
 * on PostgreSQL, for each set of NODE_OPTIONS given (added after the start script's, as an
 * operator's own; `-` for none), the sets rotated every round (ABC CBA). Each round and set: a
 * fresh server (bench/server.ts), 2 s warm-up then `--seconds` of POST /partner/orders, then the
 * same of GET /partner/orders/{id} over 64 orders, 50 connections each. Lighter than the bench (no
 * pgbench sides): for comparing heap settings (docs/adr/0017-operations.md). The GC figures come
 * from bench/gc-stats.mjs preloaded into the server; CPU per request moves by ±20 % between runs
 * on a shared machine, V8's pause time much less. Example:
 *
 *   node --import tsx bench/heap-probe.ts -- - --max-old-space-size=4096 --max-semi-space-size=8
 */
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createPartner } from '../test/helpers/process/http-client.js';
import { ORDER_BODY } from './capture-sql.js';
import { runLoad } from './load.js';
import { planCpus, pinSelf, startServer } from './server.js';

const { values, positionals } = parseArgs({
  options: { rounds: { type: 'string', default: '4' }, seconds: { type: 'string', default: '8' } },
  allowPositionals: true,
});
const ROUNDS = Number(values.rounds);
const SECONDS = Number(values.seconds);
const CONNECTIONS = 50;
const sets = positionals.length > 0 ? positionals : ['-'];
const GC_STATS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'gc-stats.mjs');
const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

const plan = planCpus();
pinSelf(plan);
console.log('| round | NODE_OPTIONS added | POST req/s | POST µs/req | peak MB after POST | GET req/s | GET µs/req | peak MB | GC pause ms | full GCs | scavenges |');
console.log('|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (let round = 0; round < ROUNDS; round++) {
  for (const set of round % 2 === 0 ? sets : [...sets].reverse()) {
    const statsFile = path.join(tmpdir(), `heap-probe-${process.pid}-${round}.jsonl`);
    const server = await startServer({
      engine: 'postgres',
      label: 'heap-probe',
      plan,
      env: { NODE_OPTIONS: `--import ${GC_STATS}${set === '-' ? '' : ` ${set}`}`, GC_STATS_FILE: statsFile },
    });
    let row: string;
    try {
      const partner = await createPartner(server.url, server.adminToken, { name: 'probe', rate_limit_per_minute: 1_000_000, max_open_orders: 1_000_000 });
      const headers = { authorization: `Bearer ${partner.apiKey}`, 'content-type': 'application/json' };
      const post = { url: `${server.url}/api/v1/partner/orders`, method: 'POST', headers, body: ORDER_BODY, expectStatus: 201, connections: CONNECTIONS };
      await runLoad({ ...post, duration: 2 });
      let cpu = server.cpuSeconds();
      const posted = await runLoad({ ...post, duration: SECONDS });
      const postUs = ((server.cpuSeconds() - cpu) * 1e6) / posted.ok;
      const postPeak = mb(server.memory().peak);
      const ids: string[] = [];
      for (let i = 0; i < 64; i++) {
        const response = await fetch(post.url, { method: 'POST', headers, body: ORDER_BODY });
        ids.push(((await response.json()) as { id: string }).id);
      }
      const requests = ids.map((id) => ({ method: 'GET', path: `/api/v1/partner/orders/${id}` }));
      const get = { url: server.url, headers: { authorization: `Bearer ${partner.apiKey}` }, requests, expectStatus: 200, connections: CONNECTIONS };
      await runLoad({ ...get, duration: 2 });
      cpu = server.cpuSeconds();
      const got = await runLoad({ ...get, duration: SECONDS });
      const getUs = ((server.cpuSeconds() - cpu) * 1e6) / got.ok;
      const failed = posted.failed + got.failed;
      row = `| ${round + 1} | ${set} | ${posted.rps.toFixed(0)} | ${postUs.toFixed(0)} | ${postPeak} | ${got.rps.toFixed(0)} | ${getUs.toFixed(0)} | ${mb(server.memory().peak)}${failed > 0 ? ` (${failed} failed)` : ''}`;
    } finally {
      await server.stop();
    }
    // The server's own line (its PGlite or other children would write theirs too).
    const lines = readFileSync(statsFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { pid: number; pauseMs: number; stats: Record<string, { count: number }> });
    rmSync(statsFile, { force: true });
    const own = lines.find((line) => line.pid === server.pid);
    console.log(`${row} | ${own?.pauseMs ?? '?'} | ${own?.stats.major?.count ?? 0} | ${own?.stats.minor?.count ?? 0} |`);
  }
}
