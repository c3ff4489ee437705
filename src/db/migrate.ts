import { Migrator, sql, type Kysely } from 'kysely';
import { MIGRATIONS } from './migrations/index.js';

/** The transaction lock that makes one process at a time migrate (any number, fixed: ours). */
const MIGRATION_LOCK = sql`pg_advisory_xact_lock(hashtext('exchange-partner-api:migrations'))`;
const PROVIDER = { getMigrations: () => Promise.resolve(MIGRATIONS) };

/** Kysely's words when the database has applied a migration this code does not have. */
const MISSING_MIGRATION = /^corrupted migrations: previously executed migration (.+) is missing$/;

/**
 * Applies every pending migration, in one transaction that first takes a transaction-level
 * advisory lock: several processes starting at once apply each migration exactly once, the
 * others waiting for the first's commit and then finding nothing to do.
 *
 * Kysely's own lock is a session-level advisory lock taken and released in statements of their
 * own, around its transaction. Through a pooler in transaction mode (pgbouncer, ADR 0045) each
 * of those can land on another server connection: the lock stayed held on one that went back
 * to the pool, its unlock ran on another ("you don't own a lock"), and the next process to
 * migrate (the second of WEB_CONCURRENCY=2, a rolling restart) waited on it until pgbouncer
 * closed that connection. Here Kysely's statements all run inside the one transaction on one
 * connection (its lock is taken and released within it, uncontended behind ours), and nothing
 * outlives the commit.
 *
 * A database a newer release has already migrated (it has applied migrations numbered above
 * this code's last, and every one of this code's) is used as it is: migrations are
 * expand/contract (src/db/README.md), so the previous release runs on the next one's schema.
 * That is what lets a rolling upgrade restart an old process, and a rollback start the previous
 * version, after `db:migrate` ran (docs/adr/0056-zero-downtime-upgrades.md). Kysely refuses such a
 * database ("previously executed migration ... is missing"); any other gap still fails.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the migrator works on any schema
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const { error, results } = await db.connection().execute(async (connection) => {
    // One connection, and BEGIN and COMMIT by hand on it: Kysely's migrator cannot be handed a
    // transaction (it asks it for a connection), so it gets the connection inside one.
    const inside = new Migrator({ db: connection, provider: PROVIDER, disableTransactions: true });
    await sql`begin`.execute(connection);
    try {
      await sql`select ${MIGRATION_LOCK}`.execute(connection);
      const outcome = await inside.migrateToLatest();
      await (outcome.error === undefined ? sql`commit` : sql`rollback`).execute(connection);
      return outcome;
    } catch (failure) {
      await sql`rollback`.execute(connection).catch(() => undefined);
      throw failure;
    }
  });
  if (error !== undefined) {
    if (await aheadOfThisCode(new Migrator({ db, provider: PROVIDER }), error)) return [];
    const failed = results?.find((result) => result.status === 'Error')?.migrationName;
    // No migration ran (the database could not be reached, or the lock not taken): the error
    // itself says what happened; "migration unknown failed" said nothing.
    if (failed === undefined) throw error instanceof Error ? error : new Error('migrating failed', { cause: error });
    throw new Error(`migration ${failed} failed`, { cause: error });
  }
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
}

/**
 * True when `error` is Kysely's refusal of a database migrated by a newer release: the unknown
 * migration sorts after every one this code has, and this code's own are all applied. Kysely
 * names the first unknown one in the order they were applied, so an unknown migration applied
 * before a known one (a database of another branch, a renamed file) names one that sorts
 * lower, and still fails.
 */
async function aheadOfThisCode(migrator: Migrator, error: unknown): Promise<boolean> {
  const unknown = error instanceof Error ? MISSING_MIGRATION.exec(error.message)?.[1] : undefined;
  if (unknown === undefined) return false;
  const known = Object.keys(MIGRATIONS).sort();
  const last = known[known.length - 1];
  if (last === undefined || unknown <= last) return false;
  const applied = await migrator.getMigrations();
  return applied.every((migration) => migration.executedAt !== undefined);
}
