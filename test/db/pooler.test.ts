// test-direct: postgres
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { lockChain } from '../../src/db/repositories/signer-repository.js';
import { listenForNotifications, type NotificationListener } from '../../src/db/notifications.js';
import { adminDatabaseUrl, createTestDatabase, testEngine, unboundedDatabase, type TestDatabase } from '../helpers/test-database.js';
import { waitFor } from '../helpers/process/waits.js';

/**
 * What the service asks of its PostgreSQL connections, as a transaction-mode pooler (pgbouncer)
 * hands each transaction whichever server connection is free: on the pgbouncer pass of
 * `npm test` this file runs through a real pgbouncer (scripts/pgbouncer.ts), as does every
 * PostgreSQL file; tagged `test-direct: postgres`, it runs directly as well. What must hold either
 * way: SET LOCAL lives and dies with its transaction, advisory locks are transaction locks,
 * queries go unnamed (no prepared statement to lose between transactions), and NOTIFY sent
 * through the pool reaches a LISTEN on the direct connection (DATABASE_DIRECT_URL).
 */
const skip = testEngine() !== 'postgres' ? 'a pooler sits in front of PostgreSQL: runs on the PostgreSQL and pgbouncer passes' : false;

describe('query paths through a transaction-mode pooler', { skip }, () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase('postgres');
  });
  after(() => database?.drop());

  it('on the pgbouncer pass the test database is reached through the pooler, LISTEN directly', () => {
    if (process.env.TEST_PGBOUNCER_URL === undefined) return;
    assert.equal(database.pooled, true);
    assert.notEqual(new URL(database.url ?? '').port, new URL(database.directUrl ?? '').port);
  });

  it('DATABASE_DIRECT_URL: LISTEN goes there, and the hot queries go unnamed', () => {
    const base = { SECRETS_KEY: 'a'.repeat(64), ADMIN_TOKEN: 'b'.repeat(43) };
    const pooled = loadConfig({ ...base, DATABASE_URL: 'postgres://app@pgbouncer:6432/exchange', DATABASE_DIRECT_URL: 'postgres://app@db:5432/exchange' });
    assert.equal(pooled.databaseListenUrl, 'postgres://app@db:5432/exchange');
    assert.equal(pooled.databasePreparedStatements, false);
    const direct = loadConfig({ ...base, DATABASE_URL: 'postgres://app@db:5432/exchange' });
    assert.equal(direct.databaseListenUrl, 'postgres://app@db:5432/exchange');
    assert.equal(direct.databasePreparedStatements, true);
    assert.throws(() => loadConfig({ ...base, DATABASE_DIRECT_URL: 'postgres://app@db:5432/exchange' }), /DATABASE_DIRECT_URL/);
  });

  it('SET LOCAL holds for its transaction and never reaches the next one on the connection', async () => {
    const db = database.handle.db;
    const inside = await db.transaction().execute(async (tx) => {
      await sql`set local statement_timeout = '4321ms'`.execute(tx);
      await sql`select 1`.execute(tx);
      return (await sql<{ statement_timeout: string }>`show statement_timeout`.execute(tx)).rows[0]?.statement_timeout;
    });
    assert.equal(inside, '4321ms');
    // Every server connection the pool may hand out next: none kept it.
    const after = await Promise.all(Array.from({ length: 20 }, () => sql<{ statement_timeout: string }>`show statement_timeout`.execute(db)));
    assert.ok(after.every((result) => result.rows[0]?.statement_timeout !== '4321ms'));
  });

  it('an advisory lock (the signer lock) is held until its transaction ends, then free', async () => {
    const db = database.handle.db;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = db.transaction().execute(async (tx) => {
      await lockChain(tx, 'LTC');
      locked();
      await released;
    });
    await isLocked;
    const tryLock = () =>
      db.transaction().execute(async (tx) => (await sql<{ got: boolean }>`select pg_try_advisory_xact_lock(hashtext('signer:LTC')) as got`.execute(tx)).rows[0]?.got);
    assert.equal(await tryLock(), false);
    release();
    await holder;
    assert.equal(await tryLock(), true);
  });

  it('migrations leave no session lock behind on a server connection (Kysely takes a session-level advisory lock)', { timeout: 30_000 }, async () => {
    const db = database.handle.db;
    // Several server connections in the pool, so that statements of one client can land on
    // different ones (the runner's pgbouncer hands out the least recently used).
    await Promise.all(Array.from({ length: 4 }, () => db.transaction().execute((tx) => sql`select pg_sleep(0.05)`.execute(tx))));
    for (let round = 0; round < 3; round++) assert.deepEqual(await migrateToLatest(db), []);
    const admin = new pg.Client({ connectionString: adminDatabaseUrl() });
    await admin.connect();
    try {
      const name = new URL(database.directUrl ?? '').pathname.slice(1);
      const held = await admin.query('select l.pid, l.objid from pg_locks l join pg_stat_activity a on a.pid = l.pid where l.locktype = $1 and a.datname = $2', ['advisory', name]);
      assert.deepEqual(held.rows, [], 'an advisory lock outlived the migration that took it');
    } finally {
      await admin.end();
    }
  });

  it('two processes migrating one database at once: each migration applied once, both succeed', { timeout: 30_000 }, async () => {
    const db = database.handle.db;
    const second = unboundedDatabase(database);
    try {
      const [first, other] = await Promise.all([migrateToLatest(db), migrateToLatest(second.db)]);
      assert.deepEqual([first, other], [[], []]);
    } finally {
      await second.close();
    }
  });

  it('the same statements, many at once in many transactions, with their parameters (no named statement to lose)', async () => {
    const db = database.handle.db;
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        db.transaction().execute(async (tx) => (await sql<{ n: number }>`select ${i}::int + 1 as n`.execute(tx)).rows[0]?.n),
      ),
    );
    assert.deepEqual(results, Array.from({ length: 60 }, (_, i) => i + 1));
  });

  it('NOTIFY through the pool, inside a transaction, reaches a LISTEN on the direct connection at commit', async () => {
    const received: string[] = [];
    let listener: NotificationListener | undefined;
    try {
      listener = listenForNotifications({
        url: database.directUrl ?? '',
        channel: 'pooler_test',
        onMessage: (payload) => received.push(payload),
        onListening: () => undefined,
        onError: () => undefined,
      });
      await listener.listening(5000);
      await database.handle.db.transaction().execute(async (tx) => {
        await sql`select pg_notify('pooler_test', 'after commit')`.execute(tx);
        assert.deepEqual(received, []);
      });
      await waitFor('the notification', () => received.length === 1, { timeoutMs: 5000, intervalMs: 10 });
      assert.deepEqual(received, ['after commit']);
    } finally {
      await listener?.close();
    }
  });
});
