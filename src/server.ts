import cluster from 'node:cluster';
import { rename, unlink, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import path from 'node:path';
import { runApiCluster, webConcurrency } from './api-cluster.js';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { DataDirLockedError } from './db/data-dir-lock.js';
import { openConfiguredDatabase } from './db/open-configured.js';
import { API_URL_FILE, withEmbeddedSecrets } from './embedded-secrets.js';
import { closeOperator, listenOperator } from './operator-listener.js';

/** Entry point: config, store, app, listen; close everything in order on SIGINT/SIGTERM. */
async function main(): Promise<void> {
  const { config, adminTokenPath } = await withEmbeddedSecrets(loadConfig());
  const database = await openConfiguredDatabase(config);
  const app = await buildApp({ config, database });
  let operatorServer: Server | undefined;

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    // A stuck close must not keep the process (and the PGlite lock) forever.
    setTimeout(() => process.exit(1), 10_000).unref();
    void (operatorServer === undefined ? Promise.resolve() : closeOperator(operatorServer))
      .then(() => app.close())
      .then(() => database.close())
      .then(() => unlink(path.join(config.dataDir, API_URL_FILE)).catch(() => undefined))
      .then(() => process.exit(0))
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
  const urlFile = path.join(config.dataDir, API_URL_FILE);
  await writeFile(`${urlFile}.${process.pid}.tmp`, `${(operatorUrl ?? url).origin}\n`, { mode: 0o600 });
  await rename(`${urlFile}.${process.pid}.tmp`, urlFile);
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
 * WEB_CONCURRENCY=N (N > 1) with DATABASE_URL: this process becomes the primary of N API
 * processes on one port (src/api-cluster.ts). Embedded (PGlite), one process: it is said once.
 */
function start(): Promise<void> {
  const processes = webConcurrency(process.env);
  if (processes > 1 && cluster.isPrimary) {
    if (process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '') {
      runApiCluster(processes);
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
  if (error instanceof ConfigError || error instanceof DataDirLockedError) {
    console.error(`cannot start: ${error.message}`);
  } else {
    console.error('cannot start:', error);
  }
  process.exit(1);
});
