import type { PGlite } from '@electric-sql/pglite';
import { putBack, readBaseline, type Baseline, type SqlSession } from './database-reset.js';

/**
 * In-memory PGlite databases lent test after test within one test process, put back as the
 * migrated template left them instead of loading the template again.
 *
 * Why: a new in-memory database from the run's template costs about 0.3 s of CPU on a quiet
 * machine here (0.6 s under the suite's load: the WebAssembly runtime's start, unpacking the
 * dump into its file system, PostgreSQL's single-user start), and the PGlite pass makes one per
 * test app, a few hundred a run. Putting a used one back costs about 20 ms: what a test changed
 * is found and undone, anything it cannot undo exactly retires the instance.
 *
 * What is put back and how: test/helpers/database-reset.ts.
 */

/** The reset's view of a PGlite instance (its one session). */
export function pgliteSession(client: PGlite): SqlSession {
  return {
    query: async <Row>(sql: string) => (await client.query<Row>(sql)).rows,
    exec: async (sql: string) => {
      await client.exec(sql);
    },
    inTransaction: () => client.isInTransaction(),
  };
}

/** How many idle instances a process keeps: tests that hold two databases at once (a backup and its restore) reuse both. */
const KEPT = 2;

export interface ReuseCounts {
  /** Instances made new (the template loaded). */
  opened: number;
  /** Lends of an instance put back. */
  reused: number;
  /** Instances closed instead of put back: a changed catalog, or a reset that failed. */
  retired: number;
}

/**
 * The instances of this process. `lend` answers a PGlite for one test database: a returned one
 * when there is one, else `open()`'s. What it answers stands for the instance until its `close()`
 * (the test database's drop), which puts the instance back; any use after that throws, so a
 * test's leftover work never reaches the next test's database.
 */
export class PgliteReuse {
  private readonly idle: PGlite[] = [];
  private readonly baselines = new WeakMap<PGlite, Baseline>();
  readonly counts: ReuseCounts = { opened: 0, reused: 0, retired: 0 };
  private readonly enabled: boolean;

  /** `enabled: false`: every returned instance is closed, every lend opens a new one. */
  constructor(options: { enabled: boolean } = { enabled: true }) {
    this.enabled = options.enabled;
  }

  /** `open`: a new instance, migrated. */
  async lend(open: () => Promise<PGlite>): Promise<PGlite> {
    let client = this.idle.pop();
    if (client === undefined) {
      client = await open();
      if (this.enabled) this.baselines.set(client, await readBaseline(pgliteSession(client), { roles: true }));
      this.counts.opened += 1;
    } else {
      this.counts.reused += 1;
    }
    return this.standIn(client);
  }

  /** Closes the idle instances (a process's end does as much; tests of this class call it). */
  async closeIdle(): Promise<void> {
    for (const client of this.idle.splice(0)) await client.close();
  }

  private async giveBack(client: PGlite): Promise<void> {
    const baseline = this.baselines.get(client);
    let reset = false;
    if (this.enabled && baseline !== undefined && !client.closed && this.idle.length < KEPT) {
      try {
        reset = await putBack(pgliteSession(client), baseline);
      } catch (error) {
        process.stderr.write(`test database: could not put a PGlite back, closing it instead (${(error as Error).message})\n`);
      }
    }
    if (reset) {
      this.idle.push(client);
      return;
    }
    this.counts.retired += 1;
    if (!client.closed) await client.close();
  }

  private standIn(client: PGlite): PGlite {
    let returned: Promise<void> | undefined;
    const refuse = (): never => {
      throw new Error('this test database was dropped: its PGlite is put back for the next test');
    };
    // Calls are refused once the database is dropped; reading a field is not (a promise's
    // resolution reads `then` of what it resolves with).
    return new Proxy(client, {
      get: (target, property) => {
        if (property === 'close') return () => (returned ??= this.giveBack(target));
        if (property === 'closed') return returned !== undefined || target.closed;
        // PGlite keeps its state in private fields: its methods and getters run on the instance itself.
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (returned !== undefined) refuse();
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  }
}
