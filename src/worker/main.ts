import pino from 'pino';
import { systemClock } from '../clock.js';
import { ConfigError, loadConfig } from '../config.js';
import { DataDirLockedError } from '../db/data-dir-lock.js';
import { DatabaseUnreachableError, openConfiguredDatabase, startAttemptMessage } from '../db/open-configured.js';
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
  const database = await openConfiguredDatabase(config, (attempt) => logger.warn(startAttemptMessage(attempt)));
  const runtime = await createRuntime({ config, database, clock: systemClock, logger, metrics: createMetrics() });
  runtime.worker.start();
  runtime.webhookWorker.start();
  logger.info('lifecycle worker running');
  logger.info('webhook worker running');

  // Each worker finishes the step it is in (an order's move, a webhook attempt), then exits;
  // SHUTDOWN_TIMEOUT_MS bounds it.
  const shutdown = (signal: string) => {
    logger.info({ signal, timeoutMs: config.shutdownTimeoutMs }, 'worker shutting down: finishing the current step');
    setTimeout(() => {
      logger.error({ timeoutMs: config.shutdownTimeoutMs }, 'worker shutdown did not finish in time (SHUTDOWN_TIMEOUT_MS): exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs).unref();
    void runtime
      .close()
      .then(() => database.close())
      .then(() => {
        logger.info('worker stopped');
        process.exit(0);
      })
      .catch((error: unknown) => {
        logger.error({ err: error }, 'worker shutdown failed');
        process.exit(1);
      });
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof DataDirLockedError || error instanceof DatabaseUnreachableError;
  console.error(known ? `cannot start the worker: ${error.message}` : error);
  process.exit(1);
});
