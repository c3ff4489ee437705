import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import { newPglite, openDatabase, pgliteStoreDir, type DatabaseHandle, type Engine } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import type { Database } from '../../src/db/schema/index.js';
import { PgliteReuse } from './pglite-reuse.js';
import { PostgresReuse } from './postgres-reuse.js';

/**
 * The engine this test process runs on: scripts/run-tests.ts runs the suite once per engine
 * and sets TEST_ENGINE; a lone `node --test` run defaults to PGlite.
 */
export function testEngine(): Engine {
  return process.env.TEST_ENGINE === 'postgres' ? 'postgres' : 'pglite';
}

/** The server-level database the test databases are created from. */
export function adminDatabaseUrl(): string {
  return process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
}

/**
 * Where a run's migrated template is (set by scripts/run-tests.ts through `createTemplate`):
 * a PGlite data directory dump (a file), or the name of a PostgreSQL database. Without it every
 * fresh database is created empty and migrated, which gives the same database, slower.
 */
export const PGLITE_TEMPLATE_ENV = 'TEST_PGLITE_TEMPLATE';
/**
 * A migrated PGlite store (initdb and every migration, as a server's first start leaves it, with
 * 1 MB WAL segments), for the tests that start servers on PGlite: `newDataDir`.
 */
export const PGLITE_DATA_DIR_TEMPLATE_ENV = 'TEST_PGLITE_DATA_DIR_TEMPLATE';
export const POSTGRES_TEMPLATE_ENV = 'TEST_POSTGRES_TEMPLATE';

export interface TestDatabase {
  handle: DatabaseHandle;
  /**
   * Connection string of this fresh database (PostgreSQL only): other processes can join it.
   * Through pgbouncer on the pgbouncer pass (TEST_PGBOUNCER_URL).
   */
  url: string | undefined;
  /** The database itself, never through a pooler: for LISTEN (DATABASE_DIRECT_URL). */
  directUrl: string | undefined;
  /** Whether `url` is a transaction-mode pooler (no named prepared statements, no LISTEN). */
  pooled: boolean;
  drop(): Promise<void>;
}

/**
 * TEST_DATABASE_REUSE=0: every test database is made anew (PGlite loaded from the template,
 * PostgreSQL created from it) and closed or dropped after, to rule the reuse out.
 */
const REUSE = process.env.TEST_DATABASE_REUSE !== '0';

/** This process's in-memory PGlite databases, put back after each test instead of loaded anew (pglite-reuse.ts). */
export const pgliteReuse = new PgliteReuse({ enabled: REUSE });

/**
 * Set by scripts/run-tests.ts: the run's id, which starts the name of every PostgreSQL database
 * the run makes, so that it can drop the ones the test processes keep when they end
 * (postgres-reuse.ts). Without it (a lone `node --test`) each database is dropped after its test.
 */
export const RUN_ID_ENV = 'TEST_RUN_ID';

/** The start of the name of every test database of the run `runId`. */
export function runDatabasePrefix(runId: string): string {
  return `t_${runId}_`;
}

/**
 * A set of kept PostgreSQL databases on this pass's server (and its pgbouncer). `enabled:
 * false`: each is dropped when given back.
 */
export function newPostgresReuse(options: { enabled: boolean }): PostgresReuse {
  const pooler = process.env[PGBOUNCER_ENV];
  return new PostgresReuse({
    enabled: options.enabled,
    directUrl: databaseUrl,
    poolerConsoleUrl: pooler === undefined ? undefined : withDatabase(pooler, 'pgbouncer'),
    drop: dropPostgresDatabase,
  });
}

/** Drops the PostgreSQL database `name`, ending whatever sessions it still has. */
export function dropPostgresDatabase(name: string): Promise<void> {
  return adminQuery(`drop database if exists ${name} with (force)`);
}

/** Creates the PostgreSQL database `name` and runs every migration on it; dropped again if that fails. */
async function createMigratedPostgres(name: string): Promise<void> {
  await adminQuery(`create database ${name}`);
  try {
    const handle = await openDatabase({ engine: 'postgres', url: databaseUrl(name), poolSize: 1 });
    try {
      await migrateToLatest(handle.db);
    } finally {
      await handle.close();
    }
  } catch (error) {
    await dropPostgresDatabase(name);
    throw error;
  }
}

let postgresDatabases: PostgresReuse | undefined;

/** This process's PostgreSQL test databases, put back after each test instead of dropped (postgres-reuse.ts). */
function postgresReuse(): PostgresReuse {
  postgresDatabases ??= newPostgresReuse({ enabled: REUSE && process.env[RUN_ID_ENV] !== undefined });
  return postgresDatabases;
}

/** A new, migrated PostgreSQL database: a copy of the run's template, or without one, every migration run on it; its name. */
export async function createPostgresDatabase(): Promise<string> {
  const runId = process.env[RUN_ID_ENV];
  const name = `${runId === undefined ? 't_' : runDatabasePrefix(runId)}${process.pid}_${randomBytes(4).toString('hex')}`;
  const template = process.env[POSTGRES_TEMPLATE_ENV];
  // The run's template is migrated by this run (createTemplate): a copy needs no migrator.
  if (template !== undefined) await adminQuery(`create database ${name} template ${template}`);
  else await createMigratedPostgres(name);
  return name;
}

/** How this pass reaches the database `name`: through its pgbouncer when it has one. */
export function postgresUrls(name: string): { url: string; directUrl: string; pooled: boolean } {
  const directUrl = databaseUrl(name);
  const pooler = process.env[PGBOUNCER_ENV];
  return { url: pooler === undefined ? directUrl : withDatabase(pooler, name), directUrl, pooled: pooler !== undefined };
}

/** Drops every database the run `runId` left (scripts/run-tests.ts, at the run's end). */
export async function dropRunDatabases(runId: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminDatabaseUrl(), connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(`select datname as name from pg_database where starts_with(datname, $1)`, [runDatabasePrefix(runId)]);
    for (const { name } of rows) await client.query(`drop database if exists ${name} with (force)`);
  } finally {
    await client.end();
  }
}

/**
 * A new in-memory PGlite database: the run's template loaded (then the migrator finds nothing to
 * apply, and would bring a stale copy up to date), or without one, initdb and every migration.
 */
export async function openPgliteDatabase(): Promise<PGlite> {
  const client = await newPglite(undefined, await pgliteTemplate());
  await migrateToLatest(new Kysely<Database>({ dialect: new PGliteDialect(client) }));
  return client;
}

/**
 * A fresh, migrated database: in-memory PGlite, or a new PostgreSQL database dropped after.
 * PGlite: an instance an earlier test of this process dropped, put back as the template left
 * it (pglite-reuse.ts), else one loaded from the run's template (`openPgliteDatabase`).
 * PostgreSQL: a database an earlier test of this process dropped, put back the same way
 * (postgres-reuse.ts), else CREATE DATABASE ... TEMPLATE the run's template.
 */
export async function createTestDatabase(engine: Engine = testEngine()): Promise<TestDatabase> {
  if (engine === 'pglite') {
    const client = await pgliteReuse.lend(openPgliteDatabase);
    const handle = await openDatabase({ engine: 'pglite', client });
    return { handle, url: undefined, directUrl: undefined, pooled: false, drop: () => handle.close() };
  }
  const reuse = postgresReuse();
  const name = await reuse.take(createPostgresDatabase);
  const { url, directUrl, pooled } = postgresUrls(name);
  // 10 s to connect, not the server's 2 s: the suite loads both cores, and a first connection to
  // a database just copied from the template can take seconds then (seen: a file failed so).
  const handle = await openDatabase({ engine: 'postgres', url, poolSize: 20, connectTimeoutMs: 10_000, preparedStatements: !pooled });
  // A database whose connection string was handed out may be held or changed by another
  // process (a server, the CLI): it is dropped after the test, never lent again.
  let shared = false;
  return {
    handle,
    get url() {
      shared = true;
      return url;
    },
    get directUrl() {
      shared = true;
      return directUrl;
    },
    pooled,
    async drop() {
      await handle.close();
      await reuse.giveBack(name, shared);
    },
  };
}

/**
 * The test database without the pool's 15-second query_timeout (src/db/database.ts), for a
 * test's bulk setup that is slow only when the machine is busy (thousands of rows and an
 * ANALYZE took longer than 15 s once in CI, beside the signer's crash rounds). One connection
 * on PostgreSQL, closed by `close`; on PGlite the database's own handle (nothing to bound).
 */
export function unboundedDatabase(db: TestDatabase): { db: Kysely<Database>; close(): Promise<void> } {
  if (db.url === undefined) return { db: db.handle.db, close: () => Promise.resolve() };
  const own = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: db.url, max: 1 }) }) });
  return { db: own, close: () => own.destroy() };
}

/**
 * A dump PGlite loads without reading a Blob: PGlite asks for `arrayBuffer()` once per load,
 * and Node 20's Blob answers it by reading and concatenating the 25 MB in chunks every time (a
 * sixth of a new database's CPU, measured). Each load gets its own copy of the bytes.
 */
class DumpBytes extends Blob {
  constructor(private readonly dump: ArrayBuffer) {
    super([]);
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    return Promise.resolve(this.dump.slice(0));
  }
}

let pgliteDump: Promise<Blob | undefined> | undefined;

/** This process's copy of the PGlite template dump, read once; undefined when there is none. */
function pgliteTemplate(): Promise<Blob | undefined> {
  const file = process.env[PGLITE_TEMPLATE_ENV];
  if (file === undefined) return Promise.resolve(undefined);
  pgliteDump ??= readFile(file).then((bytes) => new DumpBytes(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)));
  return pgliteDump;
}

/**
 * What makes the test template cheap to start, measured per new in-memory database (CPU, 2
 * cores): 1.5 s as initdb leaves it, 0.33 s so. PostgreSQL zeroes its shared buffers at start
 * (128 MB by default; a test database holds a few hundred rows), sizes its process arrays by
 * max_connections (PGlite has one session), and PGlite unpacks every file of the dump (the
 * template0 and template1 databases were 600 of its 1,100 files, and no test creates a
 * database on PGlite; the WAL segment was 16 of its 41 MB). Test databases only: the server's own PGlite keeps its settings.
 */
const PGLITE_TEMPLATE_SETUP = [
  `alter system set shared_buffers = '8MB'`,
  `alter system set max_connections = 10`,
  `alter system set wal_buffers = '256kB'`,
  `update pg_database set datistemplate = false where datname in ('template0', 'template1')`,
  'drop database template0',
  'drop database template1',
  'checkpoint',
];

/**
 * A new, empty DATA_DIR for a server or CLI process this test starts. On PGlite, when the run
 * has a migrated store (PGLITE_DATA_DIR_TEMPLATE_ENV), the directory starts with a copy of it:
 * a server on a new directory otherwise runs initdb and every migration first, about 11 s of
 * CPU of the 16 a first start costs (0.4 s to copy). A test about what a first start does on an
 * empty directory (initdb, migrations) makes its directory itself.
 */
export function newDataDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const template = process.env[PGLITE_DATA_DIR_TEMPLATE_ENV];
  if (testEngine() === 'pglite' && template !== undefined) cpSync(template, pgliteStoreDir(dir), { recursive: true });
  return dir;
}

/** A run's template: the environment that points the test processes at it, and its removal. */
export interface DatabaseTemplate {
  env: Record<string, string>;
  drop(): Promise<void>;
}

/**
 * Migrates a template once for a whole run (scripts/run-tests.ts): for PGlite a data directory
 * dump written to `pgliteDumpFile`, for PostgreSQL a database nobody connects to afterwards
 * (CREATE DATABASE ... TEMPLATE needs it idle).
 */
export async function createTemplate(engine: Engine, pgliteDumpFile: string): Promise<DatabaseTemplate> {
  if (engine === 'pglite') {
    const dataDir = path.join(path.dirname(pgliteDumpFile), 'pglite-data-template');
    await makePgliteTemplates(pgliteDumpFile, dataDir);
    return {
      env: { [PGLITE_TEMPLATE_ENV]: pgliteDumpFile, [PGLITE_DATA_DIR_TEMPLATE_ENV]: pgliteStoreDir(dataDir) },
      drop: () => Promise.resolve(),
    };
  }
  const name = `tpl_${process.pid}_${randomBytes(4).toString('hex')}`;
  await createMigratedPostgres(name);
  return {
    env: { [POSTGRES_TEMPLATE_ENV]: name },
    drop: () => dropPostgresDatabase(name),
  };
}

/**
 * Both PGlite templates from one initdb (8 s of CPU here): the in-memory tests' dump, and a
 * DATA_DIR whose store is the same migrated database as a server opens it (its settings are
 * the server's: the cheap-to-load ones are set after the store's copy is taken).
 */
async function makePgliteTemplates(dumpFile: string, dataDir: string): Promise<void> {
  // 1 MB WAL segments instead of 16: the one segment a dump carries is then 1 MB to unpack.
  const client = await PGlite.create({ initDbStartParams: ['--wal-segsize=1'] });
  const db = new Kysely<Database>({ dialect: new PGliteDialect(client) });
  try {
    await migrateToLatest(db);
    const store = await client.dumpDataDir('none');
    // PGlite unpacks a dump into an empty directory as it would into memory.
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    const onDisk = await PGlite.create({ dataDir: pgliteStoreDir(dataDir), loadDataDir: store });
    await onDisk.close();
    for (const statement of PGLITE_TEMPLATE_SETUP) await client.query(statement);
    // Uncompressed: gzip makes each load slower by more than reading the bigger file costs.
    const dump = await client.dumpDataDir('none');
    await writeFile(dumpFile, Buffer.from(await dump.arrayBuffer()));
  } finally {
    await db.destroy();
  }
}

function databaseUrl(name: string): string {
  return withDatabase(adminDatabaseUrl(), name);
}

function withDatabase(server: string, name: string): string {
  const url = new URL(server);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Set by scripts/run-tests.ts on its pgbouncer pass: the pooler's URL (transaction mode) in
 * front of TEST_DATABASE_URL's server. Test databases are then reached through it; the
 * template, creation and drops stay direct.
 */
export const PGBOUNCER_ENV = 'TEST_PGBOUNCER_URL';

/**
 * The environment a server (or worker) needs for `db` as production would be configured:
 * DATABASE_URL, and DATABASE_DIRECT_URL when DATABASE_URL is the pooler.
 */
export function databaseEnv(db: Pick<TestDatabase, 'url' | 'directUrl' | 'pooled'>): Record<string, string> {
  if (db.url === undefined) throw new Error('databaseEnv needs a PostgreSQL test database');
  return db.pooled && db.directUrl !== undefined ? { DATABASE_URL: db.url, DATABASE_DIRECT_URL: db.directUrl } : { DATABASE_URL: db.url };
}

async function adminQuery(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminDatabaseUrl(), connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
