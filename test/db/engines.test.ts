import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { migrateToLatest } from '../../src/db/migrate.js';
import { MIGRATIONS } from '../../src/db/migrations/index.js';
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/test-database.js';

/**
 * Both engines (PGlite in tests and the embedded default, PostgreSQL in production) must hand
 * back the same JavaScript types for the same SQL; this file runs once per engine.
 */
describe(`database engine: ${testEngine()}`, () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(() => database.drop());

  const one = async <T>(query: ReturnType<typeof sql<T>>): Promise<T> => {
    const { rows } = await query.execute(database.handle.db);
    assert.equal(rows.length, 1);
    return rows[0] as T;
  };

  it('reports the engine it was opened on', () => {
    assert.equal(database.handle.engine, testEngine());
  });

  it('NUMERIC comes back as the exact decimal string', async () => {
    const row = await one(sql<{ tiny: unknown; big: unknown; plain: unknown; negative: unknown; zero: unknown }>`
      select 0.000000000000000001::numeric(38,18) as tiny,
             12345678901234567890.123456789012345678::numeric(38,18) as big,
             1.5::numeric as plain,
             (-0.1)::numeric(10,2) as negative,
             0::numeric(38,18) as zero`);
    assert.equal(row.tiny, '0.000000000000000001');
    assert.equal(row.big, '12345678901234567890.123456789012345678');
    assert.equal(row.plain, '1.5');
    assert.equal(row.negative, '-0.10');
    assert.equal(row.zero, '0.000000000000000000');
  });

  it('NUMERIC arithmetic stays exact (no binary float on the way)', async () => {
    const row = await one(sql<{ sum: unknown }>`select (0.1::numeric + 0.2::numeric) as sum`);
    assert.equal(row.sum, '0.3');
  });

  it('NUMERIC columns of a table come back as strings too', async () => {
    const btc = await database.handle.db
      .selectFrom('currencies')
      .select(['min_amount', 'max_amount', 'payout_fee', 'decimals'])
      .where('coin', '=', 'BTC')
      .executeTakeFirstOrThrow();
    assert.equal(typeof btc.min_amount, 'string');
    assert.equal(btc.min_amount, '0.000200000000000000');
    assert.equal(btc.max_amount, '10.000000000000000000');
    assert.equal(btc.payout_fee, '0.000020000000000000');
    assert.equal(btc.decimals, 8);
  });

  it('INT8 comes back as a number (count(*), bigint)', async () => {
    const row = await one(sql<{ n: unknown; big: unknown; negative: unknown }>`
      select count(*) as n, 9007199254740991::int8 as big, (-42)::bigint as negative from currencies`);
    assert.equal(typeof row.n, 'number');
    assert.ok((row.n as number) >= 14);
    assert.equal(row.big, Number.MAX_SAFE_INTEGER);
    assert.equal(row.negative, -42);
    const counted = await database.handle.db
      .selectFrom('currencies')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(typeof counted.n, 'number');
    assert.equal(counted.n, row.n);
  });

  it('INT4 and SMALLINT come back as numbers', async () => {
    const row = await one(sql<{ i: unknown; s: unknown }>`select 2147483647::int4 as i, 7::smallint as s`);
    assert.equal(row.i, 2147483647);
    assert.equal(row.s, 7);
  });

  it('BYTEA comes back as a Buffer with the exact bytes', async () => {
    const row = await one(sql<{ b: unknown; empty: unknown }>`select '\\x00ff10ab'::bytea as b, ''::bytea as empty`);
    assert.ok(Buffer.isBuffer(row.b), `bytea is ${Object.prototype.toString.call(row.b)}`);
    assert.deepEqual(row.b, Buffer.from([0x00, 0xff, 0x10, 0xab]));
    assert.ok(Buffer.isBuffer(row.empty));
    assert.equal(row.empty.length, 0);

    const bytes = Buffer.from([1, 2, 3, 250, 0]);
    const roundTrip = await one(sql<{ b: unknown }>`select ${bytes}::bytea as b`);
    assert.ok(Buffer.isBuffer(roundTrip.b));
    assert.deepEqual(roundTrip.b, bytes);
  });

  it('TIMESTAMPTZ comes back as a Date at the right instant', async () => {
    const row = await one(sql<{ at: unknown; now: unknown }>`
      select '2026-03-04T05:06:07.123Z'::timestamptz as at, now() as now`);
    assert.ok(row.at instanceof Date);
    assert.equal(row.at.toISOString(), '2026-03-04T05:06:07.123Z');
    assert.ok(row.now instanceof Date);
    assert.ok(Math.abs(row.now.getTime() - Date.now()) < 60_000);

    const sent = new Date('2027-01-02T03:04:05.678Z');
    const roundTrip = await one(sql<{ at: unknown }>`select ${sent}::timestamptz as at`);
    assert.ok(roundTrip.at instanceof Date);
    assert.equal(roundTrip.at.getTime(), sent.getTime());
  });

  it('BOOLEAN, UUID, TEXT and JSONB come back as boolean, string, string and object', async () => {
    const row = await one(sql<{ t: unknown; f: unknown; id: unknown; txt: unknown; doc: unknown; nothing: unknown }>`
      select true as t, false as f,
             '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b'::uuid as id,
             'héllo'::text as txt,
             '{"a": 1, "b": [true, null, "x"], "c": {"d": 1.5}}'::jsonb as doc,
             null::numeric as nothing`);
    assert.equal(row.t, true);
    assert.equal(row.f, false);
    assert.equal(row.id, '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b');
    assert.equal(row.txt, 'héllo');
    assert.deepEqual(row.doc, { a: 1, b: [true, null, 'x'], c: { d: 1.5 } });
    assert.equal(row.nothing, null);
  });

  it('generated UUID keys are lower-case strings', async () => {
    const row = await one(sql<{ id: unknown }>`select gen_random_uuid() as id`);
    assert.equal(typeof row.id, 'string');
    assert.match(row.id as string, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('migrations are idempotent: a second run applies nothing and keeps the data', async () => {
    const before = await one(sql<{ n: number }>`select count(*) as n from currencies`);
    const applied = await one(sql<{ n: number }>`select count(*) as n from kysely_migration`);
    assert.equal(applied.n, Object.keys(MIGRATIONS).length);

    assert.deepEqual(await migrateToLatest(database.handle.db), []);
    assert.deepEqual(await migrateToLatest(database.handle.db), []);

    assert.deepEqual(await one(sql<{ n: number }>`select count(*) as n from currencies`), before);
    assert.deepEqual(await one(sql<{ n: number }>`select count(*) as n from kysely_migration`), applied);
  });

  it('ping answers true on a live handle', async () => {
    assert.equal(await database.handle.ping(2000), true);
  });
});
