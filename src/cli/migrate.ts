import { ConfigError, loadConfig } from '../config.js';
import { DatabaseUnreachableError, openConfiguredDatabase, startAttemptMessage } from '../db/open-configured.js';

/** `npm run db:migrate`: apply pending migrations to the configured store and exit. */
try {
  const config = loadConfig();
  const database = await openConfiguredDatabase(config, (attempt) => console.error(startAttemptMessage(attempt)));
  await database.close();
  console.log(`migrations applied (${database.engine})`);
} catch (error) {
  console.error(error instanceof ConfigError || error instanceof DatabaseUnreachableError ? `cannot migrate: ${error.message}` : error);
  process.exit(1);
}
