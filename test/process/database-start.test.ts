import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { spawnServer } from '../helpers/process/app-server.js';
import { http } from '../helpers/process/http-client.js';
import { killAll } from '../helpers/process/managed-process.js';
import { depositWalletEnv } from '../helpers/process/order-mix.js';
import { TcpProxy } from '../helpers/process/tcp-proxy.js';
import { freePort, GiveUp, waitFor } from '../helpers/process/waits.js';
import { adminDatabaseUrl, createTestDatabase, newDataDir, testEngine, type TestDatabase } from '../helpers/test-database.js';

/**
 * Start-up against a database that cannot be reached (issue 36.9): the server tries again with
 * backoff for DATABASE_START_TIMEOUT_MS, one clear line per attempt, and either starts when the
 * database comes (PostgreSQL pass: a TCP proxy in front of it is down, then up) or exits 1 with
 * one line saying why, never a stack trace headed "migration unknown failed".
 */
const engine = testEngine();

const baseEnv = (): Record<string, string> => ({
  SECRETS_KEY: randomBytes(32).toString('hex'),
  ADMIN_TOKEN: randomBytes(32).toString('base64url'),
  WORKER: 'off',
  LOG_LEVEL: 'info',
  DATABASE_CONNECT_TIMEOUT_MS: '1000',
});

const dirs: string[] = [];
const dataDir = (): string => {
  const dir = newDataDir('epa-dbstart-');
  dirs.push(dir);
  return dir;
};

after(async () => {
  await killAll();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The output lines that report a failed attempt to reach the database. */
const attemptLines = (output: string): string[] => output.split('\n').filter((line) => /database unreachable/.test(line) && /attempt \d+/.test(line));

describe('start-up against an unreachable database', { timeout: 300_000 }, () => {
  it('tries again with backoff, one line per attempt, then exits 1 with one line and no stack trace', { skip: engine !== 'pglite' && 'needs no database: runs on the PGlite pass' }, async () => {
    const port = await freePort();
    const server = spawnServer({
      name: 'db-start-gives-up',
      env: { ...baseEnv(), DATABASE_URL: `postgres://exchange@127.0.0.1:${port}/exchange`, DATABASE_START_TIMEOUT_MS: '4000', ...depositWalletEnv() },
      dataDir: dataDir(),
    });
    const exit = await server.waitForExit(120_000);
    const exitedAt = Date.now();
    const output = server.tail(300);
    assert.equal(exit.code, 1, output);
    const attempts = attemptLines(output);
    assert.ok(attempts.length >= 3, `several attempts, one line each:\n${output}`);
    for (const [i, line] of attempts.entries()) {
      assert.match(line, new RegExp(`attempt ${i + 1}\\b`), line);
      assert.match(line, /ECONNREFUSED/, `the line says why: ${line}`);
    }
    assert.doesNotMatch(output, /migration unknown failed/);
    assert.doesNotMatch(output, /^\s+at /m, `no stack trace:\n${output}`);
    assert.match(output, /cannot start: .*database.*unreachable.*4 s/i, output);
    // Gave up at the bound (the last wait is cut to it), not long after: timed from the first
    // attempt's log line, as the process's own start takes long on a loaded machine.
    const firstAttemptAt = (JSON.parse(attempts[0] ?? '{}') as { time?: number }).time ?? 0;
    const seconds = (exitedAt - firstAttemptAt) / 1000;
    assert.ok(seconds > 3 && seconds < 4 + 10, `exited ${seconds.toFixed(1)} s after the first attempt`);
  });

  describe('the database comes up while it waits', { skip: engine !== 'postgres' && 'needs PostgreSQL: runs on the PostgreSQL pass' }, () => {
    let database: TestDatabase | undefined;
    let proxy: TcpProxy | undefined;
    after(async () => {
      await proxy?.down();
      await database?.drop();
    });

    it('starts and serves once PostgreSQL answers', async () => {
      database = await createTestDatabase('postgres');
      const admin = new URL(adminDatabaseUrl());
      proxy = new TcpProxy({ host: admin.hostname, port: Number(admin.port || 5432) });
      await proxy.up();
      await proxy.down();
      const viaProxy = new URL(database.url ?? '');
      viaProxy.hostname = '127.0.0.1';
      viaProxy.port = String(proxy.port);
      const dir = dataDir();
      const server = spawnServer({
        name: 'db-start-waits',
        env: { ...baseEnv(), DATABASE_URL: viaProxy.toString(), DATABASE_START_TIMEOUT_MS: '60000', ...depositWalletEnv() },
        dataDir: dir,
      });
      await waitFor('two failed attempts', () => {
        if (!server.running) throw new GiveUp(new Error(`exited: ${server.tail()}`));
        return attemptLines(server.tail(300)).length >= 2;
      }, { timeoutMs: 120_000 });
      assert.ok(server.running, server.tail());
      await proxy.up();
      const url = await waitFor('the server to listen', () => {
        if (!server.running) throw new GiveUp(new Error(`exited: ${server.tail()}`));
        const line = server.line(/exchange partner API ready/);
        if (line === undefined) return false;
        return (JSON.parse(line) as { operatorApi: string }).operatorApi;
      }, { timeoutMs: 120_000 });
      const ready = await http(url, 'GET', '/readyz');
      assert.equal(ready.status, 200, ready.text);
      assert.doesNotMatch(server.tail(300), /^\s+at /m);
      await server.stop(15_000);
    });
  });
});
