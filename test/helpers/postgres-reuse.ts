import pg from 'pg';
import { putBack, readBaseline, type Baseline, type SqlSession } from './database-reset.js';

/**
 * PostgreSQL test databases kept by a test process and lent test after test, put back as the
 * migrated template left them instead of dropped and created again from it.
 *
 * Why: CREATE DATABASE ... TEMPLATE copies every file of the template through the WAL (about
 * 170 ms of the server's CPU here), DROP DATABASE removes them again (50 ms), and the first
 * connections to a new database read its catalogs afresh; the PostgreSQL passes make one per
 * test app, several hundred a run. Putting a used one back is the reset test/helpers/database-reset.ts
 * does on PGlite, run on a connection of its own.
 *
 * What is not lent again but dropped, as before:
 * - a database whose connection string a test read (`TestDatabase.url`, `directUrl`): another
 *   process (a server, the CLI, a replica) may still hold it, or have changed it in ways the
 *   reset does not look for;
 * - one whose catalogs changed, or whose reset failed or waited more than LOCK_TIMEOUT for a lock;
 * - any beyond KEPT idle ones.
 * The databases a process keeps when it ends are dropped by the runner (scripts/run-tests.ts):
 * their names start with the run's prefix (`runDatabasePrefix`).
 */

/** How many idle databases a process keeps (as pglite-reuse.ts: tests that hold two at once reuse both). */
const KEPT = 2;
/** How long the reset waits for a lock a leftover session still holds before it drops the database instead. */
const LOCK_TIMEOUT = '5s';

export interface PostgresReuseOptions {
  enabled: boolean;
  /** A connection string for the database `name`, straight to PostgreSQL. */
  directUrl(name: string): string;
  /**
   * pgbouncer's admin console, when the databases are reached through one: its server
   * connections to a database are closed before the reset (KILL, then RESUME), so none carries
   * a session of the last test into the next.
   */
  poolerConsoleUrl: string | undefined;
  /** Drops the database `name` (WITH (FORCE)). */
  drop(name: string): Promise<void>;
}

export interface PostgresReuseCounts {
  /** Databases created from the template. */
  created: number;
  /** Lends of a database put back. */
  reused: number;
  /** Databases dropped: shared, changed, a failed reset, or more than KEPT. */
  dropped: number;
}

export class PostgresReuse {
  private readonly idle: string[] = [];
  private readonly baselines = new Map<string, Baseline>();
  readonly counts: PostgresReuseCounts = { created: 0, reused: 0, dropped: 0 };

  constructor(private readonly options: PostgresReuseOptions) {}

  /** A database's name for one test: a kept one put back, else `create()`'s. */
  async take(create: () => Promise<string>): Promise<string> {
    const kept = this.idle.pop();
    if (kept !== undefined) {
      this.counts.reused += 1;
      return kept;
    }
    const name = await create();
    this.counts.created += 1;
    if (this.options.enabled) {
      try {
        this.baselines.set(name, await this.withSession(name, (session) => readBaseline(session, { roles: false })));
      } catch (error) {
        process.stderr.write(`test database: could not read ${name}'s baseline, it will be dropped after use (${(error as Error).message})\n`);
      }
    }
    return name;
  }

  /** The test is done with `name`: kept for the next test when it can be put back, else dropped. `shared`: its URL was handed out. */
  async giveBack(name: string, shared: boolean): Promise<void> {
    const baseline = this.baselines.get(name);
    let reset = false;
    if (this.options.enabled && !shared && baseline !== undefined && this.idle.length < KEPT) {
      try {
        await this.closePoolerConnections(name);
        reset = await this.withSession(name, async (session) => {
          await session.exec(`select pg_terminate_backend(pid, 5000) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`);
          return putBack(session, baseline);
        });
      } catch (error) {
        process.stderr.write(`test database: could not put ${name} back, dropping it instead (${(error as Error).message})\n`);
      }
    }
    if (reset) {
      this.idle.push(name);
      return;
    }
    this.baselines.delete(name);
    this.counts.dropped += 1;
    await this.options.drop(name);
  }

  /** Drops the idle databases (the runner drops what a process leaves; tests of this class call it). */
  async dropIdle(): Promise<void> {
    for (const name of this.idle.splice(0)) {
      this.baselines.delete(name);
      await this.options.drop(name);
    }
  }

  private async withSession<T>(name: string, use: (session: SqlSession) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: this.options.directUrl(name), connectionTimeoutMillis: 10_000, options: `-c lock_timeout=${LOCK_TIMEOUT}` });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return await use({
        query: async <Row>(sql: string) => (await client.query(sql)).rows as Row[],
        exec: async (sql: string) => {
          await client.query(sql);
        },
        // A connection of its own, never left in a transaction.
        inTransaction: () => false,
      });
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  private async closePoolerConnections(name: string): Promise<void> {
    if (this.options.poolerConsoleUrl === undefined) return;
    const console = new pg.Client({ connectionString: this.options.poolerConsoleUrl, connectionTimeoutMillis: 10_000 });
    console.on('error', () => undefined);
    await console.connect();
    try {
      // KILL closes the database's client and server connections at once and pauses it; RESUME
      // lets the next test's connections through. The identifier is ours (`t_...`), never quoted.
      try {
        await console.query(`KILL ${name}`);
      } catch (error) {
        // No connection to it through the pooler yet (the test used none, or its entry expired): nothing to close.
        if (/no such database/i.test((error as Error).message)) return;
        throw error;
      }
      await console.query(`RESUME ${name}`);
    } finally {
      await console.end().catch(() => undefined);
    }
  }
}
