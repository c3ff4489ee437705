import { Migrator, type Kysely } from 'kysely';
import { MIGRATIONS } from './migrations/index.js';

/** Kysely's words when the database has applied a migration this code does not have. */
const MISSING_MIGRATION = /^corrupted migrations: previously executed migration (.+) is missing$/;

/**
 * Applies every pending migration. Kysely's migrator takes a database lock, so several
 * processes starting at once apply each migration exactly once.
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
  const migrator = new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(MIGRATIONS) },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    if (await aheadOfThisCode(migrator, error)) return [];
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
