import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { parse } from 'lossless-json';
import { runAdminCli } from '../helpers/admin-cli.js';
import { killAll } from '../helpers/process/managed-process.js';
import { startServer, type ApiServer } from '../helpers/process/app-server.js';
import { createPartner, http } from '../helpers/process/http-client.js';
import { depositWalletEnv, ORDER_MIX } from '../helpers/process/order-mix.js';
import { onPath, skipUnless } from '../helpers/requirements.js';
import { adminDatabaseUrl, createTestDatabase, databaseEnv, newDataDir, testEngine, type TestDatabase } from '../helpers/test-database.js';

/**
 * A backup taken under load restores into a fresh store that serves every order acknowledged
 * before the backup began, and works (a new order). The embedded store on the PGlite pass
 * (`npm run admin -- backup` while the server runs: the server takes the copy), PostgreSQL's
 * pg_dump / pg_restore of the app's database on the PostgreSQL pass (docs/operations.md,
 * "Backups, restore and PITR").
 */
const engine = testEngine();
const IN_FLIGHT = 6;
/** Orders acknowledged before the backup begins. */
const BEFORE_BACKUP = 30;
const run = promisify(execFile);

/** Order JSON with every number kept as its literal text. */
function exact(text: string): Record<string, unknown> {
  return parse(text, null, (literal: string) => literal) as Record<string, unknown>;
}

/** Orders created back to back by IN_FLIGHT lanes until `stop`; each 201 kept with its body. */
class OrderLoad {
  readonly acknowledged = new Map<string, string>();
  inFlight = 0;
  private stopped = false;
  private readonly lanes: Promise<void>[];
  private next = 0;
  private failure: Error | undefined;

  constructor(
    private readonly url: string,
    private readonly apiKey: string,
  ) {
    this.lanes = Array.from({ length: IN_FLIGHT }, () => this.lane());
  }

  private async lane(): Promise<void> {
    while (!this.stopped) {
      const i = this.next++;
      this.inFlight += 1;
      try {
        const res = await http(this.url, 'POST', '/api/v1/partner/orders', { headers: { authorization: `Bearer ${this.apiKey}` }, json: ORDER_MIX[i % ORDER_MIX.length], timeoutMs: 30_000 });
        if (res.status !== 201) throw new Error(`order creation answered ${res.status}: ${res.text}`);
        this.acknowledged.set((JSON.parse(res.text) as { id: string }).id, res.text);
      } catch (error) {
        this.failure ??= error instanceof Error ? error : new Error(String(error));
        this.stopped = true;
      } finally {
        this.inFlight -= 1;
      }
    }
  }

  /** Resolves once `count` orders are acknowledged (or the load failed). */
  async reach(count: number): Promise<void> {
    while (this.acknowledged.size < count && !this.stopped) await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.failure !== undefined) throw this.failure;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.lanes);
    if (this.failure !== undefined) throw this.failure;
  }
}

/** The restored service serves each order acknowledged before the backup, as it was, and takes a new one. */
async function checkRestored(server: ApiServer, apiKey: string, before: ReadonlyMap<string, string>): Promise<void> {
  const headers = { authorization: `Bearer ${apiKey}` };
  for (const [id, body] of before) {
    const res = await http(server.url, 'GET', `/api/v1/partner/orders/${id}`, { headers });
    assert.equal(res.status, 200, `order ${id}, acknowledged before the backup began, is not served after the restore: ${res.text}`);
    // WORKER=off: nothing moves an order, so it reads back exactly as it was acknowledged.
    assert.deepEqual(exact(res.text), exact(body), `order ${id} changed across backup and restore`);
  }
  const fresh = await http(server.url, 'POST', '/api/v1/partner/orders', { headers, json: ORDER_MIX[0] });
  assert.equal(fresh.status, 201, `the restored service takes no new order: ${fresh.text}`);
  const order = JSON.parse(fresh.text) as { id: string; deposit_address: string };
  for (const body of before.values()) assert.notEqual((JSON.parse(body) as { deposit_address: string }).deposit_address, order.deposit_address, 'a new order got an address a restored order has');
  assert.equal((await http(server.url, 'GET', `/api/v1/partner/orders/${order.id}`, { headers })).status, 200);
}

describe(`backup under load, restore into a fresh store (${engine})`, { timeout: 240_000 }, () => {
  const adminToken = randomBytes(32).toString('base64url');
  const secretsKey = randomBytes(32).toString('hex');
  const workDir = mkdtempSync(path.join(tmpdir(), 'epa-backup-'));
  const databases: TestDatabase[] = [];
  const cleanups: Array<() => Promise<void>> = [];

  after(async () => {
    await killAll();
    for (const cleanup of cleanups) await cleanup();
    for (const database of databases) await database.drop();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('embedded: `admin backup` of the running server, `admin restore` refused while it runs, then into a new DATA_DIR', { skip: engine !== 'pglite' && 'the embedded store: runs on the PGlite pass' }, async () => {
    const env = { SECRETS_KEY: secretsKey, ADMIN_TOKEN: adminToken, WORKER: 'off', LOG_LEVEL: 'warn' };
    const dataDir = newDataDir('epa-backup-live-');
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const server = await startServer({ name: 'backup-live', env, dataDir });
    const partner = await createPartner(server.url, adminToken);
    const load = new OrderLoad(server.url, partner.apiKey);
    await load.reach(BEFORE_BACKUP);

    const before = new Map(load.acknowledged);
    const inFlightAtStart = load.inFlight;
    const file = path.join(workDir, 'store.tar.gz');
    const backup = await runAdminCli(['backup', file], { DATA_DIR: dataDir, ADMIN_TOKEN: adminToken });
    const duringBackup = load.acknowledged.size - before.size;
    assert.equal(backup.code, 0, backup.stderr);
    assert.match(backup.stdout, /backup of the running server at http:\/\/127\.0\.0\.1:\d+ written to .*store\.tar\.gz/);
    assert.ok(inFlightAtStart > 0, 'orders were being created when the backup began');

    // A restore onto the store the server is using is refused, says why and how, and changes nothing.
    const refused = await runAdminCli(['restore', file], { DATA_DIR: dataDir });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, new RegExp(`in use by process ${server.pid}.*Stop it first`));
    assert.deepEqual(readdirSync(dataDir).filter((name) => name.startsWith('pglite.replaced')), [], 'the refused restore moved nothing aside');
    // Nor does a second backup overwrite the first.
    assert.match((await runAdminCli(['backup', file], { DATA_DIR: dataDir, ADMIN_TOKEN: adminToken })).stderr, /exists: a backup never overwrites a file/);

    await load.stop();
    await server.stop(10_000);

    // With no server on it, the CLI reads DATA_DIR itself; restored over a store that is not in
    // use, the store there is moved aside, not deleted.
    const offline = path.join(workDir, 'offline.tar.gz');
    const stopped = await runAdminCli(['backup', offline], { DATA_DIR: dataDir });
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.match(stopped.stdout, /\(no server was running on it\) written to .*offline\.tar\.gz/);
    const over = await runAdminCli(['restore', offline], { DATA_DIR: dataDir, SECRETS_KEY: secretsKey });
    assert.equal(over.code, 0, over.stderr);
    assert.match(over.stdout, /the store that was there is kept in .*pglite\.replaced-/);
    assert.doesNotMatch(over.stdout, /warning/);
    assert.equal(readdirSync(dataDir).filter((name) => name.startsWith('pglite.replaced-')).length, 1);

    // A fresh DATA_DIR: the restore says the secrets key must come from the original.
    const freshDir = mkdtempSync(path.join(tmpdir(), 'epa-backup-fresh-'));
    cleanups.push(async () => rmSync(freshDir, { recursive: true, force: true }));
    const restored = await runAdminCli(['restore', file], { DATA_DIR: freshDir });
    assert.equal(restored.code, 0, restored.stderr);
    assert.match(restored.stdout, /restored .* into .*pglite \(schema at \d{4}-/);
    assert.match(restored.stdout, /warning: .* has no secrets-key and SECRETS_KEY is not set/);
    assert.ok(!existsSync(path.join(freshDir, 'pglite.lock')), 'the restore released DATA_DIR');

    const restoredServer = await startServer({ name: 'backup-restored', env, dataDir: freshDir });
    await checkRestored(restoredServer, partner.apiKey, before);
    await restoredServer.stop(10_000);
    console.log(`# pglite: ${before.size} orders acknowledged before the backup (${inFlightAtStart} in flight as it began, ${duringBackup} acknowledged while it ran, ${load.acknowledged.size} in all): every one served after the restore, and a new order taken`);
  });

  it('PostgreSQL: pg_dump of the database the app uses, under load; pg_restore into a new database', { skip: (engine !== 'postgres' && 'pg_dump and pg_restore: runs on the PostgreSQL pass') || skipUnless(onPath('pg_dump') && onPath('pg_restore'), 'pg_dump and pg_restore', "install Debian's `postgresql-client` package") }, async () => {
    const source = await createTestDatabase('postgres');
    databases.push(source);
    const env = { SECRETS_KEY: secretsKey, ADMIN_TOKEN: adminToken, WORKER: 'off', LOG_LEVEL: 'warn', ...depositWalletEnv() };
    const dataDir = mkdtempSync(path.join(tmpdir(), 'epa-backup-pg-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const server = await startServer({ name: 'backup-pg', env: { ...env, ...databaseEnv(source) }, dataDir });
    const partner = await createPartner(server.url, adminToken);
    const load = new OrderLoad(server.url, partner.apiKey);
    await load.reach(BEFORE_BACKUP);

    // The CLI's backup names PostgreSQL's own tools instead.
    const cli = await runAdminCli(['backup', path.join(workDir, 'unused.tar.gz')], { DATA_DIR: dataDir, ADMIN_TOKEN: adminToken, DATABASE_URL: source.url ?? '' });
    assert.equal(cli.code, 1);
    assert.match(cli.stderr, /PostgreSQL \(DATABASE_URL\): back it up with pg_dump/);

    const before = new Map(load.acknowledged);
    const inFlightAtStart = load.inFlight;
    const file = path.join(workDir, 'store.dump');
    // Straight to the database, never through a pooler (docs/operations.md): one snapshot of it.
    await run('pg_dump', ['--format=custom', '--no-owner', '--file', file, '--dbname', source.directUrl ?? '']);
    const duringBackup = load.acknowledged.size - before.size;
    assert.ok(inFlightAtStart > 0, 'orders were being created when the backup began');
    await load.stop();
    await server.stop(10_000);

    const name = `restored_${process.pid}_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: adminDatabaseUrl() });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const restoredUrl = new URL(adminDatabaseUrl());
    restoredUrl.pathname = `/${name}`;
    cleanups.push(async () => {
      const drop = new pg.Client({ connectionString: adminDatabaseUrl() });
      await drop.connect();
      await drop.query(`drop database if exists ${name} with (force)`);
      await drop.end();
    });
    await run('pg_restore', ['--no-owner', '--exit-on-error', '--dbname', restoredUrl.toString(), file]);

    const restoredServer = await startServer({ name: 'backup-pg-restored', env: { ...env, DATABASE_URL: restoredUrl.toString() }, dataDir });
    await checkRestored(restoredServer, partner.apiKey, before);
    await restoredServer.stop(10_000);
    console.log(`# postgres: ${before.size} orders acknowledged before pg_dump (${inFlightAtStart} in flight as it began, ${duringBackup} acknowledged while it ran): every one served after pg_restore, and a new order taken`);
  });
});
