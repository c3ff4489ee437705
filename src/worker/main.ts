import pino from 'pino';
import { systemClock } from '../clock.js';
import { ConfigError, loadConfig } from '../config.js';
import { DataDirLockedError } from '../db/data-dir-lock.js';
import { openConfiguredDatabase } from '../db/open-configured.js';
import { withEmbeddedSecrets } from '../embedded-secrets.js';
import { loggerOptions } from '../logger.js';
import { createMetrics } from '../metrics.js';
import { createRuntime } from '../runtime.js';

/**
 * `npm run worker`: the lifecycle worker without the HTTP API, for production, where any number
 * of these run beside API processes started with WORKER=off (all on one PostgreSQL).
 */
async function main(): Promise<void> {
  const { config } = await withEmbeddedSecrets(loadConfig());
  if (config.databaseUrl === undefined) {
    throw new ConfigError('DATABASE_URL', 'a separate worker needs PostgreSQL; on the embedded default the worker runs inside npm start');
  }
  const logger = pino(loggerOptions(config.logLevel));
  const database = await openConfiguredDatabase(config);
  const runtime = await createRuntime({ config, database, clock: systemClock, logger, metrics: createMetrics() });
  runtime.worker.start();
  runtime.webhookWorker.start();
  logger.info('lifecycle worker running');
  logger.info('webhook worker running');

  const shutdown = (signal: string) => {
    logger.info({ signal }, 'worker shutting down');
    setTimeout(() => process.exit(1), 10_000).unref();
    void runtime
      .close()
      .then(() => database.close())
      .then(() => process.exit(0));
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof DataDirLockedError;
  console.error(known ? `cannot start the worker: ${error.message}` : error);
  process.exit(1);
});
