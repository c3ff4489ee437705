import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { migrateToLatest } from '../../src/db/migrate.js';
import { MIGRATIONS } from '../../src/db/migrations/index.js';
import { depositWalletEnv } from '../helpers/process/order-mix.js';
import { skipUnless } from '../helpers/requirements.js';
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/test-database.js';

/**
 * Zero-downtime upgrades (docs/adr/0056-zero-downtime-upgrades.md): migrations are
 * expand/contract (src/db/README.md), so while a new release rolls out, and after a rollback,
 * the previous release's code runs on the new schema.
 */
const engine = testEngine();
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const names = Object.keys(MIGRATIONS).sort();
const newest = names[names.length - 1] ?? '';

describe('a database migrated by a newer release', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(() => database.drop());

  const record = (name: string) => sql`insert into kysely_migration (name, timestamp) values (${name}, ${new Date().toISOString()})`.execute(database.handle.db);
  const forget = (name: string) => sql`delete from kysely_migration where name = ${name}`.execute(database.handle.db);

  it('is used as it is: its migrations above this code\'s last are a newer release\'s', async () => {
    await record('9999-from-a-newer-release');
    try {
      assert.deepEqual(await migrateToLatest(database.handle.db), []);
    } finally {
      await forget('9999-from-a-newer-release');
    }
  });

  it('still refuses an unknown migration below this code\'s last, or one of its own missing', async () => {
    // Applied after the known ones but named below the newest: another branch's database.
    await record('0000a-another-branch');
    try {
      await assert.rejects(migrateToLatest(database.handle.db), /0000a-another-branch is missing/);
    } finally {
      await forget('0000a-another-branch');
    }
    // A newer release's migration, but one of this code's own was never applied: not a newer schema.
    const [row] = (await sql<{ timestamp: string }>`select timestamp from kysely_migration where name = ${newest}`.execute(database.handle.db)).rows;
    await record('9999-from-a-newer-release');
    await forget(newest);
    try {
      await assert.rejects(migrateToLatest(database.handle.db), /9999-from-a-newer-release is missing/);
    } finally {
      await forget('9999-from-a-newer-release');
      await sql`insert into kysely_migration (name, timestamp) values (${newest}, ${row?.timestamp ?? new Date().toISOString()})`.execute(database.handle.db);
    }
    assert.deepEqual(await migrateToLatest(database.handle.db), []);
  });
});

/** The commit before the newest migration landed: the previous release's code, as this clone's history has it. */
function previousRelease(): string | undefined {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const added = git('log', '--diff-filter=A', '--format=%H', '-1', '--', `src/db/migrations/${newest}.ts`);
    // Not committed yet (a working copy): the last commit is the previous release.
    const commit = added === '' ? 'HEAD' : `${added}^1`;
    return git('rev-parse', '--verify', `${commit}^{commit}`);
  } catch {
    return undefined;
  }
}

const previous = engine === 'postgres' ? previousRelease() : undefined;

describe(
  "the previous release's code on the new schema",
  {
    timeout: 120_000,
    skip:
      engine !== 'postgres'
        ? 'several releases at once share PostgreSQL during a rolling upgrade: runs on the PostgreSQL pass'
        : skipUnless(previous !== undefined, `git history (the commit before ${newest} landed)`, 'run from a clone with its history (not shallow)'),
  },
  () => {
    let database: TestDatabase;
    let dir: string;
    before(async () => {
      database = await createTestDatabase();
      dir = mkdtempSync(path.join(tmpdir(), 'epa-previous-release-'));
      // Its sources as that commit has them, beside this checkout's dependencies.
      execFileSync('sh', ['-c', `git archive ${previous ?? 'HEAD'} src assets package.json tsconfig.json | tar -x -C "${dir}"`], { cwd: repo });
      symlinkSync(path.join(repo, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
      writeFileSync(path.join(dir, 'previous-release.mts'), PREVIOUS_RELEASE_SCRIPT);
    });
    after(async () => {
      await database?.drop();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    it('creates, reads, lists, cancels and moves orders on the database this code migrated', async () => {
      assert.ok(database.url !== undefined);
      const env = {
        ...process.env,
        ...depositWalletEnv(),
        // Straight to PostgreSQL, not through the pgbouncer pass's pooler: the previous release
        // may predate DATABASE_DIRECT_URL (ADR 0045), and its subject is the schema, not a pooler.
        DATABASE_URL: database.directUrl ?? database.url,
        SECRETS_KEY: randomBytes(32).toString('hex'),
        ADMIN_TOKEN: randomBytes(32).toString('base64url'),
        DATA_DIR: dir,
        WORKER: 'off',
        LOG_LEVEL: 'warn',
        PRICE_POLL_SECONDS: '3600',
      };
      const output = await new Promise<string>((resolve, reject) => {
        execFile(process.execPath, ['--import', 'tsx', path.join(dir, 'previous-release.mts')], { cwd: dir, env, timeout: 100_000 }, (error, stdout, stderr) => {
          if (error === null) resolve(stdout);
          else reject(new Error(`the previous release (${previous ?? ''}) failed on the new schema: ${error.message}\n${stdout}\n${stderr}`));
        });
      });
      const result = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as { orderId?: string; status?: string };
      assert.ok(result.orderId !== undefined, output);
      // What the previous code wrote is there for this code to read.
      const { rows } = await sql<{ status: string }>`select status from orders where id = ${result.orderId}`.execute(database.handle.db);
      assert.equal(rows[0]?.status, result.status);
    });
  },
);

/**
 * Runs inside the previous release's sources (its own app, its own queries) against DATABASE_URL,
 * opened without migrating: what an old API process does during the roll. It uses only what
 * every release has had: loadConfig, openDatabase, buildApp, the HTTP routes and worker.tick().
 */
const PREVIOUS_RELEASE_SCRIPT = `
import { loadConfig } from './src/config.js';
import { openDatabase } from './src/db/database.js';
import { buildApp } from './src/app.js';

const config = loadConfig(process.env);
const database = await openDatabase({ engine: 'postgres', url: config.databaseUrl, poolSize: 4, connectTimeoutMs: 10_000 });
const app = await buildApp({ config, database });
await app.ready();
const admin = { authorization: 'Bearer ' + config.adminToken };
async function call(method, url, headers, payload, expected) {
  const res = await app.inject({ method, url, headers, payload });
  if (res.statusCode !== expected) throw new Error(method + ' ' + url + ' answered ' + res.statusCode + ': ' + res.body);
  return res.json();
}
try {
  const partner = await call('POST', '/admin/v1/partners', admin, { name: 'Previous release' }, 201);
  const key = await call('POST', '/admin/v1/partners/' + partner.id + '/keys', admin, undefined, 201);
  const auth = { 'x-api-key': key.api_key };
  await call('GET', '/api/v1/currencies', auth, undefined, 200);
  const order = await call('POST', '/api/v1/partner/orders', auth, {
    coin_from: 'BTC', network_from: 'BTC', coin_to: 'ETH', network_to: 'ETH', amount_from: '0.5', rate_type: 'float',
    recipient_address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', refund_address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
  }, 201);
  await call('GET', '/api/v1/partner/orders/' + order.id, auth, undefined, 200);
  const list = await call('GET', '/api/v1/partner/orders', auth, undefined, 200);
  if (!list.orders.some((row) => row.id === order.id)) throw new Error('the order is not in the list');
  await call('GET', '/api/v1/partner/stats', auth, undefined, 200);
  await app.runtime.worker.tick();
  const cancelled = await call('POST', '/api/v1/partner/orders/' + order.id + '/cancel', auth, undefined, 200);
  console.log(JSON.stringify({ orderId: order.id, status: cancelled.status }));
} finally {
  await app.close();
  await database.close();
}
`;
