import type { Config } from '../config.js';
import { openDatabase, type DatabaseHandle } from './database.js';
import { migrateToLatest } from './migrate.js';

/** The store the configuration names (PostgreSQL when DATABASE_URL is set), migrated. */
export async function openConfiguredDatabase(config: Config): Promise<DatabaseHandle> {
  const database = await openDatabase(
    config.databaseUrl === undefined
      ? { engine: 'pglite', dataDir: config.dataDir }
      : { engine: 'postgres', url: config.databaseUrl, connectTimeoutMs: config.databaseConnectTimeoutMs },
  );
  try {
    await migrateToLatest(database.db);
    return database;
  } catch (error) {
    await database.close();
    throw error;
  }
}
