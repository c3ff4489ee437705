// test-engines: one
/**
 * The PGlite pass lends each test database's instance to the next test once it is dropped
 * (test/helpers/pglite-reuse.ts). These tests hold that to "a returned database reads as a fresh
 * one": a database used by a whole app and then some is put back, and compared with a database
 * just loaded from the template on everything a test or the planner could read.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PGlite } from '@electric-sql/pglite';
import { openDatabase } from '../../src/db/database.js';
import { PgliteReuse } from '../helpers/pglite-reuse.js';
import { buildTestApp, ManualClock } from '../helpers/test-app.js';
import { openPgliteDatabase } from '../helpers/test-database.js';
import { BTC_CONFIRMATIONS, createOrder, getOrder, LIFECYCLE_ENV, setConfirmations, simulateDeposit, type Harness } from '../lifecycle/lifecycle-helpers.js';

/**
 * What a test could observe of a database, written independently of the reset's own checks:
 * the schema, every table's rows, every relation's size on disk, every sequence, the planner's
 * estimates and statistics.
 */
async function stateOf(client: PGlite): Promise<Record<string, unknown>> {
  const one = async <T>(query: string): Promise<T> => (await client.query<{ v: T }>(query)).rows[0]!.v;
  const tables = (await client.query<{ name: string }>(`select quote_ident(tablename) as name from pg_tables where schemaname = 'public' order by 1`)).rows.map((r) => r.name);
  const rows: Record<string, unknown> = {};
  for (const table of tables) {
    rows[table] = await one(`select coalesce(json_agg(t order by t::text), '[]'::json) as v from ${table} t`);
  }
  const sequences: Record<string, unknown> = {};
  for (const { name } of (await client.query<{ name: string }>(`select quote_ident(sequencename) as name from pg_sequences where schemaname = 'public' order by 1`)).rows) {
    sequences[name] = (await client.query(`select last_value::text, is_called from ${name}`)).rows[0];
  }
  return {
    rows,
    sequences,
    relations: await one(`select json_agg(json_build_array(c.relname, c.relkind, c.relpages, c.reltuples, c.relallvisible, pg_relation_size(c.oid)) order by c.relname) as v
      from pg_class c where c.relnamespace = 'public'::regnamespace`),
    statistics: await one(`select count(*)::int as v from pg_statistic s join pg_class c on c.oid = s.starelid where c.relnamespace = 'public'::regnamespace`),
    triggers: await one(`select json_agg(json_build_array(tgname, tgenabled) order by tgname) as v from pg_trigger where not tgisinternal`),
    functions: await one(`select json_agg(json_build_array(proname, md5(prosrc)) order by proname, md5(prosrc)) as v from pg_proc where pronamespace = 'public'::regnamespace`),
    roles: await one(`select json_agg(rolname order by rolname) as v from pg_roles`),
  };
}

/** The session a test leaves behind: what DISCARD ALL must have cleared. */
async function sessionOf(client: PGlite): Promise<Record<string, unknown>> {
  const value = async (query: string): Promise<unknown> => Object.values((await client.query<Record<string, unknown>>(query)).rows[0] ?? {})[0];
  return {
    inTransaction: client.isInTransaction(),
    statementTimeout: await value('show statement_timeout'),
    replicationRole: await value('show session_replication_role'),
    prepared: await value('select count(*)::int from pg_prepared_statements'),
    temporary: await value(`select count(*)::int from pg_class where relpersistence = 't'`),
    locks: await value(`select count(*)::int from pg_locks where locktype = 'advisory'`),
    listening: await value('select count(*)::int from pg_listening_channels()'),
  };
}

describe('test databases on PGlite, put back for the next test', () => {
  it('a database a whole app used reads, once returned, as one just loaded from the template', async () => {
    const reuse = new PgliteReuse();
    const first = await reuse.lend(openPgliteDatabase);
    const fresh = await stateOf(first);
    const freshSession = await sessionOf(first);
    const other = await openPgliteDatabase();
    try {
      assert.deepEqual(await stateOf(other), fresh, 'two databases loaded from the template read alike, so the comparison below can tell');
    } finally {
      await other.close();
    }

    // An app on it: a partner, its key, orders through the lifecycle to completed (events,
    // snapshots, the outbox, payouts, the ledger), request logs, the operator audit.
    const clock = new ManualClock();
    const t = await buildTestApp({ clock, env: LIFECYCLE_ENV, wrapDatabase: () => openDatabase({ engine: 'pglite', client: first }) });
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
      // The app's close drops the app's own database; the lent one is given back below.
      await t.close();
    }
    // And what no app does: a seeded row changed, a sequence drawn, the planner's statistics and
    // estimates rewritten, a session left in a transaction with settings, a prepared statement,
    // a temporary table, an advisory lock and a LISTEN.
    await first.exec(`update currencies set name = 'changed' where coin = 'BTC'`);
    await first.exec(`select nextval('deposit_index_btc'), nextval('deposit_index_btc')`);
    await first.exec('analyze');
    await first.exec('vacuum orders');
    await first.exec(`set statement_timeout = 1234; prepare left_over as select 1; create temporary table left_over (id int); select pg_advisory_lock(42); listen left_over`);
    await first.exec('begin; insert into static_prices select * from static_prices limit 0');
    assert.notDeepEqual(await stateOf(first), fresh, 'the database was changed');

    const returned = (first as { close(): Promise<void> }).close();
    await returned;
    await assert.rejects(async () => first.query('select 1'), /dropped/, 'the test that dropped it can no longer reach it');

    const second = await reuse.lend(openPgliteDatabase);
    assert.deepEqual(reuse.counts, { opened: 1, reused: 1, retired: 0 });
    assert.deepEqual(await sessionOf(second), freshSession);
    assert.deepEqual(await stateOf(second), fresh);
    await second.close();
    await reuse.closeIdle();
  });

  it('a database whose schema a test changed is closed, not lent again', async () => {
    const reuse = new PgliteReuse();
    for (const change of [
      'create table scratch (id int)',
      `create sequence scratch_writes`,
      'alter table orders disable trigger all',
      'alter table partners add column scratch int',
      `create role scratch_role`,
    ]) {
      const client = await reuse.lend(openPgliteDatabase);
      await client.exec(change);
      await client.close();
    }
    assert.deepEqual(reuse.counts, { opened: 5, reused: 0, retired: 5 });
    const clean = await reuse.lend(openPgliteDatabase);
    await clean.close();
    const again = await reuse.lend(openPgliteDatabase);
    await again.close();
    assert.deepEqual(reuse.counts, { opened: 6, reused: 1, retired: 5 });
    await reuse.closeIdle();
  });
});
