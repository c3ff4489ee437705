// test-engines: postgres (scripts/run-tests.ts): the separate worker runs on PostgreSQL only; on PGlite the whole file skips.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, afterEach, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { killAll, type ManagedProcess } from '../helpers/process/managed-process.js';
import { sleep, waitFor } from '../helpers/process/waits.js';
import { startWorker } from '../helpers/process/app-server.js';
import { TcpProxy } from '../helpers/process/tcp-proxy.js';
import { adminDatabaseUrl, createTestDatabase, testEngine, type TestDatabase } from '../helpers/test-database.js';

/**
 * `npm run worker` when PostgreSQL goes away under it (issue 36.2): it once exited with code 0
 * and not a word (every timer of its loops is unref'd, so once the pool's sockets were gone the
 * event loop was empty) while orders stalled. Now it stays, logs the failure at error level with
 * backoff, reconnects, and its heartbeat row (worker_heartbeats) shows it ticking again.
 * PostgreSQL pass only: the separate worker needs DATABASE_URL.
 */
const engine = testEngine();

interface Heartbeat {
  id: string;
  kind: string;
  pid: number;
  last_tick_at: Date;
}

async function heartbeats(database: TestDatabase, pid: number): Promise<Heartbeat[]> {
  const { rows } = await sql<Heartbeat>`select id, kind, pid, last_tick_at from worker_heartbeats where pid = ${pid} order by kind`.execute(database.handle.db);
  return rows;
}

/** Waits until every loop of the worker `pid` has ticked after `since`. */
async function tickedSince(database: TestDatabase, pid: number, since: Date, timeoutMs = 20_000): Promise<Heartbeat[]> {
  return waitFor(
    `worker ${pid} to tick after ${since.toISOString()}`,
    async () => {
      const rows = await heartbeats(database, pid);
      return rows.length === 2 && rows.every((row) => row.last_tick_at > since) ? rows : undefined;
    },
    { timeoutMs, intervalMs: 200 },
  );
}

/** Output lines of `proc` at pino's error level (50) or above. */
function errorLines(proc: ManagedProcess): string[] {
  return proc
    .tail(300)
    .split('\n')
    .filter((line) => /"level":(5|6)0/.test(line));
}

describe('the separate worker loses PostgreSQL', { timeout: 180_000, skip: engine !== 'postgres' && 'the separate worker runs on PostgreSQL only: PostgreSQL pass' }, () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  const env = (url: string): Record<string, string> => ({
    DATABASE_URL: url,
    SECRETS_KEY: randomBytes(32).toString('hex'),
    ADMIN_TOKEN: randomBytes(32).toString('base64url'),
    WORKER_INTERVAL_MS: '200',
    DATABASE_CONNECT_TIMEOUT_MS: '2000',
    LOG_LEVEL: 'info',
  });

  before(async () => {
    database = await createTestDatabase('postgres');
    const admin = new URL(adminDatabaseUrl());
    proxy = new TcpProxy({ host: admin.hostname, port: Number(admin.port || 5432) });
    await proxy.up();
  });

  afterEach(async () => {
    proxy.resume();
    await proxy.up();
  });

  after(async () => {
    await killAll();
    await proxy?.down();
    await database?.drop();
  });

  it('outlives pg_terminate_backend of every connection it has, and ticks again', async () => {
    // Straight to PostgreSQL even on the pgbouncer pass: the connections terminated must be the worker's own.
    const worker = await startWorker('worker-terminated', env(database.directUrl ?? ''));
    const started = await tickedSince(database, worker.pid, new Date(0));
    assert.deepEqual(
      started.map((row) => row.kind),
      ['lifecycle', 'webhook'],
      'one heartbeat row per loop of the process',
    );

    const admin = new pg.Client({ connectionString: adminDatabaseUrl() });
    await admin.connect();
    let terminated: number;
    try {
      const name = new URL(database.url ?? '').pathname.slice(1);
      const result = await admin.query<{ pid: number }>(
        'select pg_terminate_backend(pid) as ok, pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
        [name],
      );
      terminated = result.rowCount ?? 0;
    } finally {
      await admin.end();
    }
    assert.ok(terminated > 0, 'the worker had connections to terminate');
    const cut = new Date();

    await sleep(3000);
    assert.ok(worker.running, `the worker exited after its connections were terminated: ${JSON.stringify(worker.exit)}\n${worker.tail()}`);
    await tickedSince(database, worker.pid, cut);
    assert.ok(worker.running);
  });

  it('while PostgreSQL is unreachable: stays up, logs at error level with backoff, and recovers without a restart', async () => {
    const real = new URL(database.url ?? '');
    real.hostname = '127.0.0.1';
    real.port = String(proxy.port);
    const worker = await startWorker('worker-unreachable', env(real.toString()));
    await tickedSince(database, worker.pid, new Date(0));
    const errorsBefore = errorLines(worker).length;

    await proxy.down();
    const downFor = 6000;
    await sleep(downFor);
    assert.ok(worker.running, `the worker exited while PostgreSQL was unreachable: ${JSON.stringify(worker.exit)}\n${worker.tail()}`);
    const errors = errorLines(worker).slice(errorsBefore);
    assert.ok(errors.length > 0, `the outage was logged at error level:\n${worker.tail()}`);
    // Passes every 200 ms and a claim every 250 ms would be ~50 lines in 6 s; with backoff a few.
    assert.ok(errors.length <= 16, `${errors.length} error lines in ${downFor} ms: the retries back off\n${errors.join('\n')}`);

    await proxy.up();
    const back = new Date();
    await tickedSince(database, worker.pid, back, 60_000);
    assert.ok(worker.running, 'recovered in the same process');
    assert.ok(worker.saw(/running again after failed passes/), `the recovery is logged:\n${worker.tail()}`);
  });
});
