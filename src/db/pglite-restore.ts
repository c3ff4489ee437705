import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { sql } from 'kysely';
import { DataDirLockedError, lockDataDir } from './data-dir-lock.js';
import { openDatabase, pgliteStoreDir } from './database.js';

export interface PgliteRestore {
  /** Where the store that was in DATA_DIR before went (kept, never deleted); undefined: there was none. */
  replacedStoreDir: string | undefined;
  /** The newest migration the restored store has applied (the server applies the rest at start). */
  latestMigration: string | undefined;
}

/** The file given is not a backup this store can load. */
export class NotABackupError extends Error {
  constructor(reason: string) {
    super(`the file is not a backup of the embedded store (${reason})`);
    this.name = 'NotABackupError';
  }
}

/**
 * Makes DATA_DIR's store the one in `dump` (a backup taken by `npm run admin -- backup`, see
 * pglite-backup.ts). Refuses while a process holds DATA_DIR (DataDirLockedError, which names
 * its pid): a server's PGlite would keep writing its own copy over the restored files. A store
 * already there is moved aside to `pglite.replaced-<time>` rather than deleted, and moved back
 * if the dump cannot be loaded.
 */
export async function restorePgliteStore(dataDir: string, dump: Blob, now: Date = new Date()): Promise<PgliteRestore> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const storeDir = pgliteStoreDir(dataDir);
  let replacedStoreDir: string | undefined;
  // Taken and released before the open below takes it again: this first hold is what makes the
  // move aside safe; a server starting in between would find no store and a held lock at the
  // open, which then fails rather than restores under it.
  const lock = lockDataDir(dataDir);
  try {
    if (existsSync(storeDir)) {
      replacedStoreDir = `${storeDir}.replaced-${now.toISOString().replace(/[:.]/g, '-')}`;
      await rename(storeDir, replacedStoreDir);
    }
  } finally {
    lock.release();
  }
  let database;
  try {
    database = await openDatabase({ engine: 'pglite', dataDir, loadDataDir: dump });
  } catch (error) {
    // Another process took DATA_DIR in between: whatever it made there is its own, left alone.
    if (error instanceof DataDirLockedError) throw error;
    await putBack(storeDir, replacedStoreDir);
    throw new NotABackupError(error instanceof Error ? error.message : String(error));
  }
  let latest;
  try {
    latest = await sql<{ name: string }>`select name from kysely_migration order by name desc limit 1`.execute(database.db).catch(() => undefined);
  } finally {
    await database.close();
  }
  if (latest === undefined) {
    await putBack(storeDir, replacedStoreDir);
    throw new NotABackupError("it holds a PostgreSQL data directory, but not this service's tables");
  }
  return { replacedStoreDir, latestMigration: latest.rows[0]?.name };
}

/** A restore that failed leaves DATA_DIR as it found it. */
async function putBack(storeDir: string, replacedStoreDir: string | undefined): Promise<void> {
  await rm(storeDir, { recursive: true, force: true });
  if (replacedStoreDir !== undefined) await rename(replacedStoreDir, storeDir);
}
