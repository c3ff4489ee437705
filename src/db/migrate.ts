import { Migrator, type Kysely } from 'kysely';
import { MIGRATIONS } from './migrations/index.js';

/**
 * Applies every pending migration. Kysely's migrator takes a database lock, so several
 * processes starting at once apply each migration exactly once.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the migrator works on any schema
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(MIGRATIONS) },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName;
    // No migration ran (the database could not be reached, or the lock not taken): the error
    // itself says what happened; "migration unknown failed" said nothing.
    if (failed === undefined) throw error instanceof Error ? error : new Error('migrating failed', { cause: error });
    throw new Error(`migration ${failed} failed`, { cause: error });
  }
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
}
