// test-direct: postgres
/**
 * Each test process lends a dropped test database to its next test, put back as the template
 * left it (test/helpers/database-reset.ts): PGlite instances on the PGlite pass
 * (pglite-reuse.ts), PostgreSQL databases on the PostgreSQL passes (postgres-reuse.ts; through
 * pgbouncer on its pass). These tests hold that to "a returned database reads as a fresh one":
 * a database used by a whole app and then some is put back, and compared with one just made
 * from the template on everything a test or the planner could read.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import type { SqlSession } from '../helpers/database-reset.js';
import { PgliteReuse, pgliteSession } from '../helpers/pglite-reuse.js';
import { buildTestApp, ManualClock } from '../helpers/test-app.js';
import { createPostgresDatabase, dropPostgresDatabase, newPostgresReuse, openPgliteDatabase, postgresUrls, testEngine } from '../helpers/test-database.js';
import { BTC_CONFIRMATIONS, createOrder, getOrder, LIFECYCLE_ENV, setConfirmations, simulateDeposit, type Harness } from '../lifecycle/lifecycle-helpers.js';

/** One lent database, as this file uses it on either engine. */
interface Lent {
  /** A connection that stays open until `giveBack` (on PGlite, its one session). */
  session: SqlSession;
  /** A handle for an app, on the lent database (through the pass's pooler on PostgreSQL). */
  open(): Promise<DatabaseHandle>;
  giveBack(): Promise<void>;
  /** Whether the test that gave it back can still reach it through what it was lent. */
  stillReachable(): Promise<boolean>;
}

interface Engine {
  name: 'pglite' | 'postgres';
  lend(): Promise<Lent>;
  /** A database just made from the template, read by `read` and then closed or dropped. */
  withFresh<T>(read: (session: SqlSession) => Promise<T>): Promise<T>;
  counts(): Record<string, number>;
  release(): Promise<void>;
  /** Changes that make the database unfit to lend again (the catalogs the reset cannot undo). */
  schemaChanges: string[];
}

async function pgSession(url: string): Promise<SqlSession & { end(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  let open = false;
  return {
    query: async <Row>(sql: string) => (await client.query(sql)).rows as Row[],
    exec: async (sql: string) => {
      await client.query(sql);
      if (/^\s*begin\b/i.test(sql)) open = true;
    },
    inTransaction: () => open,
    end: () => client.end().catch(() => undefined),
  };
}

const SCHEMA_CHANGES = [
  'create table scratch (id int)',
  `create sequence scratch_writes`,
  'alter table orders disable trigger all',
  'alter table partners add column scratch int',
  `do $$ begin execute format('alter database %I set work_mem = %L', current_database(), '1MB'); end $$`,
];

function pgliteEngine(): Engine {
  const reuse = new PgliteReuse();
  return {
    name: 'pglite',
    async lend() {
      const client = await reuse.lend(openPgliteDatabase);
      return {
        session: pgliteSession(client),
        open: () => openDatabase({ engine: 'pglite', client }),
        giveBack: () => client.close(),
        async stillReachable() {
          try {
            await client.query('select 1');
            return true;
          } catch (error) {
            if (/dropped/.test((error as Error).message)) return false;
            throw error;
          }
        },
      };
    },
    async withFresh(read) {
      const client = await openPgliteDatabase();
      try {
        return await read(pgliteSession(client));
      } finally {
        await client.close();
      }
    },
    counts: () => ({ ...reuse.counts }),
    release: () => reuse.closeIdle(),
    // A PGlite instance's roles are its own.
    schemaChanges: [...SCHEMA_CHANGES, 'create role scratch_role'],
  };
}

function postgresEngine(): Engine {
  const reuse = newPostgresReuse({ enabled: true });
  return {
    name: 'postgres',
    async lend() {
      const name = await reuse.take(createPostgresDatabase);
      const { url, directUrl, pooled } = postgresUrls(name);
      const session = await pgSession(directUrl);
      return {
        session,
        open: () => openDatabase({ engine: 'postgres', url, poolSize: 4, connectTimeoutMs: 10_000, preparedStatements: !pooled }),
        async giveBack() {
          // The session stays open, in whatever state the test left it: the reset ends it.
          await reuse.giveBack(name, false);
        },
        async stillReachable() {
          try {
            await session.query('select 1');
            return true;
          } catch {
            // Its session was ended by the reset.
            return false;
          }
        },
      };
    },
    async withFresh(read) {
      const name = await createPostgresDatabase();
      const session = await pgSession(postgresUrls(name).directUrl);
      try {
        return await read(session);
      } finally {
        await session.end();
        await dropPostgresDatabase(name);
      }
    },
    counts: () => ({ ...reuse.counts }),
    release: () => reuse.dropIdle(),
    schemaChanges: SCHEMA_CHANGES,
  };
}

/**
 * What a test could observe of a database, written independently of the reset's own checks:
 * the schema, every table's rows, every relation's size on disk, every sequence, the planner's
 * estimates and statistics.
 */
async function stateOf(session: SqlSession): Promise<Record<string, unknown>> {
  const one = async <T>(query: string): Promise<T> => (await session.query<{ v: T }>(query))[0]!.v;
  const tables = (await session.query<{ name: string }>(`select quote_ident(tablename) as name from pg_tables where schemaname = 'public' order by 1`)).map((r) => r.name);
  const rows: Record<string, unknown> = {};
  for (const table of tables) {
    rows[table] = await one(`select coalesce(json_agg(t order by t::text), '[]'::json) as v from ${table} t`);
  }
  const sequences: Record<string, unknown> = {};
  for (const { name } of await session.query<{ name: string }>(`select quote_ident(sequencename) as name from pg_sequences where schemaname = 'public' order by 1`)) {
    sequences[name] = (await session.query(`select last_value::text, is_called from ${name}`))[0];
  }
  return {
    rows,
    sequences,
    relations: await one(`select json_agg(json_build_array(c.relname, c.relkind, c.relpages, c.reltuples, c.relallvisible, pg_relation_size(c.oid)) order by c.relname) as v
      from pg_class c where c.relnamespace = 'public'::regnamespace`),
    statistics: await one(`select count(*)::int as v from pg_statistic s join pg_class c on c.oid = s.starelid where c.relnamespace = 'public'::regnamespace`),
    triggers: await one(`select json_agg(json_build_array(tgname, tgenabled) order by tgname) as v from pg_trigger where not tgisinternal`),
    functions: await one(`select json_agg(json_build_array(proname, md5(prosrc)) order by proname, md5(prosrc)) as v from pg_proc where pronamespace = 'public'::regnamespace`),
    settings: await one(`select coalesce(json_agg(array_to_string(setconfig, ';') order by 1), '[]'::json) as v from pg_db_role_setting
      where setdatabase = (select oid from pg_database where datname = current_database())`),
    roles: await one(`select json_agg(rolname order by rolname) as v from pg_roles`),
  };
}

/** The session a test leaves behind: what DISCARD ALL (PGlite) or a new session (PostgreSQL) must have cleared. */
async function sessionOf(session: SqlSession): Promise<Record<string, unknown>> {
  const value = async (query: string): Promise<unknown> => Object.values((await session.query<Record<string, unknown>>(query))[0] ?? {})[0];
  return {
    inTransaction: session.inTransaction(),
    statementTimeout: await value('show statement_timeout'),
    replicationRole: await value('show session_replication_role'),
    prepared: await value('select count(*)::int from pg_prepared_statements'),
    temporary: await value(`select count(*)::int from pg_class where relpersistence = 't'`),
    locks: await value(`select count(*)::int from pg_locks where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())`),
    listening: await value('select count(*)::int from pg_listening_channels()'),
  };
}

/** What differs between two states, by part and table: the message a failed comparison prints. */
function differences(actual: Record<string, unknown>, expected: Record<string, unknown>): string {
  const lines: string[] = [];
  for (const key of new Set([...Object.keys(actual), ...Object.keys(expected)])) {
    const a = actual[key];
    const e = expected[key];
    if (JSON.stringify(a) === JSON.stringify(e)) continue;
    if (typeof a === 'object' && a !== null && !Array.isArray(a) && typeof e === 'object' && e !== null && !Array.isArray(e)) {
      lines.push(`${key}: ${differences(a as Record<string, unknown>, e as Record<string, unknown>)}`);
    } else if (Array.isArray(a) && Array.isArray(e)) {
      const changed = a.filter((item) => !e.some((other) => JSON.stringify(other) === JSON.stringify(item)));
      const missing = e.filter((item) => !a.some((other) => JSON.stringify(other) === JSON.stringify(item)));
      lines.push(`${key}: returned has ${JSON.stringify(changed).slice(0, 600)}, fresh has ${JSON.stringify(missing).slice(0, 600)}`);
    } else {
      lines.push(`${key}: returned ${JSON.stringify(a).slice(0, 600)}, fresh ${JSON.stringify(e).slice(0, 600)}`);
    }
  }
  return lines.join('; ');
}

const engine = testEngine() === 'pglite' ? pgliteEngine() : postgresEngine();

describe(`test databases on ${engine.name}, put back for the next test`, () => {
  it('a database a whole app used reads, once returned, as one just made from the template', async () => {
    const first = await engine.lend();
    const fresh = await stateOf(first.session);
    const freshSession = await sessionOf(first.session);
    const other = await engine.withFresh(stateOf);
    assert.deepEqual(other, fresh, `two databases made from the template read alike, so the comparison below can tell: ${differences(other, fresh)}`);

    // An app on it: a partner, its key, orders through the lifecycle to completed (events,
    // snapshots, the outbox, payouts, the ledger), request logs, the operator audit.
    const clock = new ManualClock();
    const t = await buildTestApp({ clock, env: LIFECYCLE_ENV, wrapDatabase: () => first.open() });
    try {
      const h: Harness = { t, clock, partner: await t.createPartner() };
      for (const amount of ['0.1', '0.2']) {
        const { id } = await createOrder(h, { amount_from: amount });
        await simulateDeposit(h, id);
        await t.runtime.worker.tick();
        await setConfirmations(h, id, BTC_CONFIRMATIONS);
        for (let pass = 0; pass < 6; pass++) {
          clock.advance(1);
          await t.runtime.worker.tick();
        }
        assert.equal((await getOrder(h, id)).status, 'completed');
      }
      await createOrder(h);
    } finally {
      // The app's close closes its handle and gives back the app's own database; the lent one is given back below.
      await t.close();
    }
    // And what no app does: a seeded row changed, a row written to an empty table and rolled back
    // (the table stays empty, its file does not), a sequence drawn, the planner's statistics and
    // estimates rewritten, a session left in a transaction with settings, a prepared statement,
    // a temporary table, an advisory lock and a LISTEN.
    await first.session.exec(`update currencies set name = 'changed' where coin = 'BTC'`);
    await first.session.exec(`begin; insert into signer_pauses (chain, paused_by, paused_at) values ('LTC', 'reuse test', now()); rollback`);
    await first.session.exec(`select nextval('deposit_index_btc'), nextval('deposit_index_btc')`);
    await first.session.exec('analyze');
    await first.session.exec('vacuum orders');
    await first.session.exec(`set statement_timeout = 1234; prepare left_over as select 1; create temporary table left_over (id int); select pg_advisory_lock(42); listen left_over`);
    await first.session.exec('begin; insert into static_prices select * from static_prices limit 0');
    assert.notDeepEqual(await stateOf(first.session), fresh, 'the database was changed');

    await first.giveBack();
    assert.equal(await first.stillReachable(), false, 'the test that gave it back can no longer reach it');

    const second = await engine.lend();
    try {
      assert.deepEqual(engine.counts(), engine.name === 'pglite' ? { opened: 1, reused: 1, retired: 0 } : { created: 1, reused: 1, dropped: 0 });
      const session = await sessionOf(second.session);
      assert.deepEqual(session, freshSession, differences(session, freshSession));
      const state = await stateOf(second.session);
      assert.deepEqual(state, fresh, differences(state, fresh));
    } finally {
      await second.giveBack();
      await engine.release();
    }
  });

  it('a database whose schema a test changed is not lent again', async () => {
    const before = engine.counts();
    for (const change of engine.schemaChanges) {
      const lent = await engine.lend();
      await lent.session.exec(change);
      await lent.giveBack();
    }
    const changes = engine.schemaChanges.length;
    const after = (made: number, reused: number, retired: number): Record<string, number> =>
      engine.name === 'pglite'
        ? { opened: (before.opened ?? 0) + made, reused: (before.reused ?? 0) + reused, retired: (before.retired ?? 0) + retired }
        : { created: (before.created ?? 0) + made, reused: (before.reused ?? 0) + reused, dropped: (before.dropped ?? 0) + retired };
    assert.deepEqual(engine.counts(), after(changes, 0, changes));
    const clean = await engine.lend();
    await clean.giveBack();
    const again = await engine.lend();
    await again.giveBack();
    assert.deepEqual(engine.counts(), after(changes + 1, 1, changes));
    await engine.release();
  });
});
