import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, sql, type Dialect } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import { lockDataDir, type DataDirLock } from './data-dir-lock.js';
import { dumpPglite } from './pglite-backup.js';
import { preparedName } from './prepared-statements.js';
import type { Database } from './schema/index.js';
import type { PoolStats } from '../metrics.js';
import { TYPE_PARSERS } from './type-parsers.js';
import { tracedDialect } from '../tracing/traced-dialect.js';
import { activeTracer } from '../tracing/tracing.js';

export type Engine = 'pglite' | 'postgres';

/** Connect timeout of one new PostgreSQL connection, ms. */
const CONNECT_TIMEOUT_MS = 2000;

class PreparingClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig, prepared = true) {
    super(config);
    // A connection that dies while checked out (the server went away between two queries of a
    // request) emits 'error' with no pool listener attached, which would end the process. The
    // request still sees the failure on its next query (and answers 503); the pool drops the
    // broken client when it is released.
    this.on('error', () => undefined);
    // A query text registered in prepared-statements.ts goes as its named statement: parsed and
    // planned once per connection. Kysely calls query(text, values) and awaits the promise.
    // Off behind a transaction-mode pooler (DATABASE_PREPARED_STATEMENTS).
    if (!prepared) return;
    const query = this.query.bind(this) as (...args: unknown[]) => unknown;
    this.query = ((...args: unknown[]) => {
      const [text, values] = args;
      const name = typeof text === 'string' && args.length === 2 ? preparedName(text) : undefined;
      return name === undefined ? query(...args) : query({ name, text, values });
    }) as typeof this.query;
  }
}

/** A pool's client class whose new connections give up after `connectTimeoutMs`. */
function fastConnectClient(connectTimeoutMs: number, prepared: boolean): typeof pg.Client {
  return class FastConnectClient extends PreparingClient {
    constructor(config?: string | pg.ClientConfig) {
      super(typeof config === 'string' ? { connectionString: config, connectionTimeoutMillis: connectTimeoutMs } : { ...config, connectionTimeoutMillis: connectTimeoutMs }, prepared);
    }
  };
}

/** The open store: one Kysely over either engine, plus what the process needs to manage it. */
export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly engine: Engine;
  /** True when a trivial query answers within the timeout. */
  ping(timeoutMs?: number): Promise<boolean>;
  /** The PostgreSQL pool's counts (for its gauges); undefined on PGlite, which has no pool. */
  poolStats?(): PoolStats;
  /**
   * DATABASE_READ_URL's streaming replica, for the reads that tolerate lag
   * (services/replica-reads.ts decides which go there); undefined without one.
   */
  readonly replica?: Kysely<Database>;
  /**
   * A consistent copy of the embedded store while it serves (PGlite only; PostgreSQL is backed
   * up by its own tools): a gzipped tar of the data directory (src/db/pglite-backup.ts).
   */
  backup?(): Promise<Blob>;
  close(): Promise<void>;
}

export type DatabaseTarget =
  /**
   * `connectTimeoutMs`: how long a new connection may take, 2 s by default (an unreachable server
   * must fail a request fast; DATABASE_CONNECT_TIMEOUT_MS); the tests' own databases and the
   * servers they start allow more on a loaded machine.
   */
  | {
      engine: 'postgres';
      url: string;
      poolSize?: number;
      connectTimeoutMs?: number;
      /** Named prepared statements (default true); false behind a transaction-mode pooler. */
      preparedStatements?: boolean;
    }
  /**
   * `dataDir` undefined means in memory (tests). `loadDataDir`: a dump of a data directory
   * (PGlite's dumpDataDir) to start from instead of running initdb; the tests clone a migrated
   * template this way, several seconds faster than a new cluster.
   */
  | { engine: 'pglite'; dataDir: string | undefined; loadDataDir?: Blob }
  /**
   * An open in-memory PGlite that the caller owns: the handle serves it and its `close()` calls
   * the client's `close()`, which the owner may make end only this use of it. The tests lend one
   * instance to test after test this way (test/helpers/pglite-reuse.ts), a reset instead of a load.
   */
  | { engine: 'pglite'; client: PGlite };

export async function openDatabase(target: DatabaseTarget): Promise<DatabaseHandle> {
  if (target.engine === 'postgres') return openPostgres(target.url, target.poolSize, target.connectTimeoutMs, target.preparedStatements);
  if ('client' in target) return pgliteHandle(target.client, undefined);
  return openPglite(target.dataDir, target.loadDataDir);
}

function openPostgres(url: string, poolSize = 10, connectTimeoutMs = CONNECT_TIMEOUT_MS, preparedStatements = true): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    // node-postgres uses one setting for two waits: opening a connection and waiting for a free
    // one. A burst of orders must queue for a free connection (up to 10 s) ...
    connectionTimeoutMillis: 10_000,
    // ... while an unreachable server must fail fast: each new connection gives up after 2 s,
    // so a request gets its 503 within about two seconds, never hangs.
    Client: fastConnectClient(connectTimeoutMs, preparedStatements),
    idleTimeoutMillis: 30_000,
    // A query that runs away (or a server that stops answering mid-query) ends too.
    query_timeout: 15_000,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
        TYPE_PARSERS[oid] ?? (pg.types.getTypeParser(oid, format) as unknown)) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const db = new Kysely<Database>({ dialect: withTracing(new PostgresDialect({ pool })) });
  return {
    db,
    engine: 'postgres',
    ping: (timeoutMs) => ping(db, timeoutMs),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: poolSize }),
    close: () => db.destroy(),
  };
}

/**
 * PGlite's postgresql.conf additions. shared_buffers is PostgreSQL's page cache inside the WASM
 * heap, which never gives memory back: 128MB by default, it grows the process by as much as the
 * database is read. One process with one connection gains little from it (the kernel's page cache
 * holds the files too), so 32MB bounds the embedded server's memory (docs/durability.md).
 */
const PGLITE_SETTINGS = ['shared_buffers = 32MB'];

/** Where PGlite's own files are inside DATA_DIR (beside the lock, the secrets and api-url). */
export function pgliteStoreDir(dataDir: string): string {
  return path.join(dataDir, 'pglite');
}

async function openPglite(dataDir: string | undefined, loadDataDir: Blob | undefined): Promise<DatabaseHandle> {
  let lock: DataDirLock | undefined;
  let storeDir: string | undefined;
  if (dataDir !== undefined) {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    lock = lockDataDir(dataDir);
    storeDir = pgliteStoreDir(dataDir);
  }
  try {
    // A new data directory is made by initdb, which PGlite runs in a WASM instance of its own and
    // keeps referenced for as long as the PGlite object lives (620 MB of external memory at its
    // peak, bench/README.md): a short-lived child process makes it, so this process never holds it.
    if (storeDir !== undefined && loadDataDir === undefined && !existsSync(path.join(storeDir, 'PG_VERSION'))) {
      await initdbInChild(storeDir);
    }
    return pgliteHandle(await newPglite(storeDir, loadDataDir), lock);
  } catch (error) {
    lock?.release();
    throw error;
  }
}

/** A PGlite with this service's type parsers and settings; in memory when `storeDir` is undefined. */
export function newPglite(storeDir: string | undefined, loadDataDir: Blob | undefined): Promise<PGlite> {
  return PGlite.create({ dataDir: storeDir, loadDataDir, parsers: { ...TYPE_PARSERS }, postgresqlconf: PGLITE_SETTINGS });
}

/** The handle over an open PGlite; closing it closes the client (Kysely's PGlite dialect does) and releases `lock`. */
function pgliteHandle(client: PGlite, lock: DataDirLock | undefined): DatabaseHandle {
  const db = new Kysely<Database>({ dialect: withTracing(new PGliteDialect(client)) });
  return {
    db,
    engine: 'pglite',
    ping: (timeoutMs) => ping(db, timeoutMs),
    backup: () => dumpPglite(db, client),
    async close() {
      try {
        await db.destroy();
      } finally {
        lock?.release();
      }
    },
  };
}

/** Runs src/db/pglite-initdb.ts (or its compiled .js) in a child with this process's loader flags. */
async function initdbInChild(storeDir: string): Promise<void> {
  const here = fileURLToPath(import.meta.url);
  const script = path.join(path.dirname(here), `pglite-initdb${path.extname(here)}`);
  await new Promise<void>((resolve, reject) => {
    execFile(process.execPath, [...loaderFlags(process.execArgv), script, storeDir], (error, _stdout, stderr) => {
      if (error === null) resolve();
      else reject(new Error(`creating the PGlite data directory failed: ${error.message}\n${stderr}`));
    });
  });
}

/**
 * This process's module loader flags (tsx's `--import tsx`), and only those: a process started
 * with `-e <code>` or `-p` has them in its execArgv too, and passed on they would make the child
 * run that code instead of the initdb script (a test's `node -e` opening this very directory
 * then found it locked by itself).
 */
function loaderFlags(execArgv: readonly string[]): string[] {
  const flags: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i] ?? '';
    if (LOADER_FLAGS.has(arg)) {
      flags.push(arg, execArgv[i + 1] ?? '');
      i++;
    } else if (LOADER_FLAGS.has(arg.split('=')[0] ?? '') && arg.includes('=')) {
      flags.push(arg);
    }
  }
  return flags;
}
const LOADER_FLAGS = new Set(['--import', '--require', '-r', '--loader', '--experimental-loader']);

async function ping(db: Kysely<Database>, timeoutMs = 1000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([sql`select 1`.execute(db).then(() => true), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** Every query a span when this process traces (started before the database opens); else the dialect as is. */
function withTracing(dialect: Dialect): Dialect {
  const tracer = activeTracer();
  return tracer === undefined ? dialect : tracedDialect(dialect, tracer, 'postgresql');
}
