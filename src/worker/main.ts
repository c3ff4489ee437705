import pino from 'pino';
import { systemClock } from '../clock.js';
import { ConfigError, loadConfig } from '../config.js';
import { startTracing, stopTracing } from '../tracing/tracing.js';
import { DataDirLockedError } from '../db/data-dir-lock.js';
import { DatabaseUnreachableError, openConfiguredDatabase, startAttemptMessage } from '../db/open-configured.js';
import { withEmbeddedSecrets } from '../embedded-secrets.js';
import { loggerOptions } from '../logger.js';
import { createMetrics } from '../metrics.js';
import { createRuntime } from '../runtime.js';
import { listenWorkerMetrics } from './metrics-listener.js';

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
  // Before the database opens: its queries are spans only when tracing is on at that moment.
  if (config.otlpEndpoint !== undefined) await startTracing({ endpoint: config.otlpEndpoint, serviceName: config.otelServiceName ?? 'exchange-worker' });
  const database = await openConfiguredDatabase(config, (attempt) => logger.warn(startAttemptMessage(attempt)));
  const metrics = createMetrics();
  const runtime = await createRuntime({ config, database, clock: systemClock, logger, metrics });
  // WORKER_METRICS_PORT: this process's own metrics (the API's /metrics has none of the worker's).
  const metricsServer =
    config.operator.workerMetrics === undefined ? undefined : await listenWorkerMetrics(metrics, config.operator.workerMetrics, config.operator.metricsToken);
  if (metricsServer !== undefined) logger.info({ metrics: `${metricsServer.url.origin}/metrics` }, 'worker metrics listening');
  // What keeps this process alive until a signal: every timer of the loops is
  // unref'd (an API process must be able to close with them pending), so once PostgreSQL cut
  // the pool's sockets the event loop was empty and the worker exited with code 0 and no word
  // while orders stalled. The loops log a lost database and retry with backoff; only a signal
  // or a fatal error ends the process.
  const keepAlive = setInterval(() => undefined, 60_000);
  process.on('uncaughtException', (error) => fatal(logger, error));
  process.on('unhandledRejection', (error) => fatal(logger, error));
  runtime.worker.start('separate');
  runtime.webhookWorker.start('separate');
  runtime.mailWorker.start();
  logger.info('lifecycle worker running');
  logger.info('webhook worker running');

  // Each worker finishes the step it is in (an order's move, a webhook attempt), then exits;
  // SHUTDOWN_TIMEOUT_MS bounds it.
  const shutdown = (signal: string) => {
    clearInterval(keepAlive);
    logger.info({ signal, timeoutMs: config.shutdownTimeoutMs }, 'worker shutting down: finishing the current step');
    setTimeout(() => {
      logger.error({ timeoutMs: config.shutdownTimeoutMs }, 'worker shutdown did not finish in time (SHUTDOWN_TIMEOUT_MS): exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs).unref();
    metricsServer?.server.close();
    void runtime
      .close()
      .then(() => database.close())
      .then(() => stopTracing())
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

/** A bug nobody caught: said at fatal level, and the process ends non-zero for its supervisor to restart. */
function fatal(logger: pino.Logger, error: unknown): never {
  logger.fatal({ err: error }, 'worker stopped by an unexpected error');
  process.exit(1);
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof DataDirLockedError || error instanceof DatabaseUnreachableError;
  console.error(known ? `cannot start the worker: ${error.message}` : error);
  process.exit(1);
});
