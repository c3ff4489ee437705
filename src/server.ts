import cluster from 'node:cluster';
import { readFile, rename, unlink, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import path from 'node:path';
import { runApiCluster } from './api-cluster.js';
import pino from 'pino';
import type { App } from './app-types.js';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { DataDirLockedError } from './db/data-dir-lock.js';
import { DatabaseUnreachableError, openConfiguredDatabase, startAttemptMessage } from './db/open-configured.js';
import { API_URL_FILE, withEmbeddedSecrets } from './embedded-secrets.js';
import { loggerOptions } from './logger.js';
import { startTracing } from './tracing/tracing.js';
import { closeOperator, listenOperator } from './operator-listener.js';

/**
 * Entry point: config, store, app, listen; on SIGTERM/SIGINT a graceful stop (stopGracefully).
 */
async function main(): Promise<void> {
  const { config, adminTokenPath } = await withEmbeddedSecrets(loadConfig());
  // Before the app exists its logger does not either: the same options, for the start-up lines.
  const startLog = pino(loggerOptions(config.logLevel));
  // Before the database opens: its queries are spans only when tracing is on at that moment.
  if (config.otlpEndpoint !== undefined) await startTracing({ endpoint: config.otlpEndpoint, serviceName: config.otelServiceName ?? 'exchange-api' });
  const database = await openConfiguredDatabase(config, (attempt) => startLog.warn(startAttemptMessage(attempt)));
  const app = await buildApp({ config, database });
  let operatorServer: Server | undefined;
  const urlFile = path.join(config.dataDir, API_URL_FILE);
  // What this process wrote to api-url, once it listens (a stop before that removes nothing).
  const written: { url?: string } = {};

  let closing = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    // SIGTERM is what a service manager or an orchestrator sends: the load balancer gets
    // SHUTDOWN_DELAY_MS to notice. Ctrl-C (SIGINT) at a terminal has no balancer to wait for.
    const delayMs = signal === 'SIGTERM' ? config.shutdownDelayMs : 0;
    app.log.info({ signal, delayMs, timeoutMs: config.shutdownTimeoutMs }, 'shutting down: not ready, draining');
    // A stuck close must not keep the process (and the PGlite lock) forever.
    setTimeout(() => {
      app.log.error({ timeoutMs: config.shutdownTimeoutMs }, 'shutdown did not finish in time (SHUTDOWN_TIMEOUT_MS): exiting');
      process.exit(1);
    }, delayMs + config.shutdownTimeoutMs).unref();
    void stopGracefully(app, operatorServer, delayMs)
      .then(() => database.close())
      .then(() => removeUrlFile(urlFile, written.url))
      .then(() => {
        app.log.info('stopped');
        process.exit(0);
      })
      .catch((error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));

  const address = await app.listen({ port: config.port, host: config.host });
  const url = new URL(address);
  if (url.hostname === '0.0.0.0' || url.hostname === '[::]') url.hostname = '127.0.0.1';
  // ADMIN_PORT: the operator API and /metrics on their own listener (src/operator-listener.ts).
  let operatorUrl: URL | undefined;
  if (config.operator.listener !== undefined) {
    const operator = await listenOperator(app, config.operator.listener);
    operatorServer = operator.server;
    operatorUrl = operator.url;
    if (operatorUrl.hostname === '0.0.0.0' || operatorUrl.hostname === '[::]') operatorUrl.hostname = '127.0.0.1';
  }
  // The admin CLI finds the running operator API here when ADMIN_API_URL is not set: the
  // operator listener's origin with ADMIN_PORT, else the one listener's.
  // Written aside and renamed into place: whoever waits for the file never reads it half written
  // (the bench's server start did, now and then, and failed on an empty URL).
  const writtenUrl = (operatorUrl ?? url).origin;
  await writeFile(`${urlFile}.${process.pid}.tmp`, `${writtenUrl}\n`, { mode: 0o600 });
  await rename(`${urlFile}.${process.pid}.tmp`, urlFile);
  written.url = writtenUrl;
  if (cluster.isWorker) process.send?.({ apiUrl: writtenUrl });
  app.log.info(
    {
      store: database.engine === 'pglite' ? `PGlite in ${config.dataDir}` : 'PostgreSQL (DATABASE_URL)',
      docs: `${url.origin}/docs`,
      operatorApi: (operatorUrl ?? url).origin,
      adminTokenFile: adminTokenPath ?? '(ADMIN_TOKEN from the environment)',
    },
    'exchange partner API ready',
  );
}

/**
 * The graceful stop, in order: /readyz turns 503 and every response closes its
 * connection (Drain) while requests are still served for `delayMs`, so the load balancer moves
 * traffic elsewhere and each keep-alive client is told to reconnect; then both listeners stop
 * accepting, idle connections close, in-flight requests finish (their responses close their
 * connections); then the app closes: the in-process workers finish their current step
 * (Runtime.close). The caller bounds the whole (SHUTDOWN_TIMEOUT_MS) and closes the database.
 */
async function stopGracefully(app: App, operatorServer: Server | undefined, delayMs: number): Promise<void> {
  app.drain.begin();
  if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
  await Promise.all([
    operatorServer === undefined ? Promise.resolve() : closeOperator(operatorServer),
    new Promise<void>((resolve) => app.server.close(() => resolve())),
  ]);
  app.log.info('listeners closed, requests finished');
  await app.close();
}

/**
 * DATA_DIR/api-url is removed only while it still names this process's listener: another
 * instance on the same DATA_DIR may have written its own since, and the
 * processes of one WEB_CONCURRENCY group share one origin, so there the primary removes it
 * once all of them have stopped (src/api-cluster.ts).
 */
async function removeUrlFile(file: string, written: string | undefined): Promise<void> {
  if (written === undefined || cluster.isWorker) return;
  const current = await readFile(file, 'utf8').catch(() => undefined);
  if (current?.trim() === written) await unlink(file).catch(() => undefined);
}

/**
 * WEB_CONCURRENCY=N (N > 1) with DATABASE_URL: this process becomes the primary of N API
 * processes on one port (src/api-cluster.ts). Embedded (PGlite), one process: it is said once.
 */
function start(): Promise<void> {
  const config = loadConfig();
  const processes = config.webConcurrency;
  if (processes > 1 && cluster.isPrimary) {
    if (config.databaseUrl !== undefined) {
      runApiCluster(processes, {
        workerStopMs: config.shutdownDelayMs + config.shutdownTimeoutMs,
        apiUrlFile: path.join(config.dataDir, API_URL_FILE),
      });
      return Promise.resolve();
    }
    console.error(
      `WEB_CONCURRENCY=${processes} ignored: the embedded PGlite store serves one process; ` +
        'set DATABASE_URL (PostgreSQL) to run several API processes',
    );
  }
  return main();
}

start().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DataDirLockedError || error instanceof DatabaseUnreachableError) {
    console.error(`cannot start: ${error.message}`);
  } else {
    console.error('cannot start:', error);
  }
  process.exit(1);
});
