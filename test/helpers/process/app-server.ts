/**
 * The service's own processes, started as `npm start` and `npm run worker` start them: an API
 * server (`src/server.ts`) and a lifecycle worker (`src/worker/main.ts`). Used by the process
 * tests (test/process/), `npm run check:concurrency`, the bench and the Node.js LTS smoke test.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_URL_FILE } from '../../../src/embedded-secrets.js';
import { childEnv, spawnManaged, waitUntilReady, type ManagedProcess } from './managed-process.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const SERVER_ENTRY = path.join(REPO_ROOT, 'src/server.ts');
const WORKER_ENTRY = path.join(REPO_ROOT, 'src/worker/main.ts');

export interface NodeProcessOptions {
  /** Node.js options before the entry (the bench adds `--cpu-prof --cpu-prof-dir <dir>`). */
  nodeOptions?: readonly string[];
  /** A command to run node under (the bench pins the server to a core: `taskset -c 0`). */
  wrapper?: readonly string[];
  /** Also write the process's output to this file. */
  logFile?: string;
  /** Arguments after the entry. */
  args?: readonly string[];
}

/**
 * `node --import tsx <entry>` from the repository root with exactly `env` (see childEnv), plus a
 * PostgreSQL connect timeout of 10 s unless `env` names one: a loaded test machine can take
 * more than the 2 s default to start a backend when a burst opens a whole pool at once.
 */
export function spawnNode(name: string, entry: string, env: Record<string, string>, options: NodeProcessOptions = {}): ManagedProcess {
  const argv = [...(options.wrapper ?? []), process.execPath, ...(options.nodeOptions ?? []), '--import', 'tsx', entry, ...(options.args ?? [])];
  const [command = process.execPath, ...args] = argv;
  const withTimeout = { DATABASE_CONNECT_TIMEOUT_MS: '10000', ...env };
  return spawnManaged(name, command, args, { env: childEnv(withTimeout), cwd: REPO_ROOT, logFile: options.logFile });
}

export interface ApiServer extends ManagedProcess {
  /** Origin the server listens on, as it wrote it to DATA_DIR/api-url. */
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
}

export interface StartServerOptions extends NodeProcessOptions {
  name?: string;
  /**
   * Configuration of the server. PORT defaults to 0 (the system picks a free port; the URL is
   * read from the `api-url` file the server writes once it listens); DATA_DIR is `dataDir`.
   */
  env: Record<string, string>;
  /** DATA_DIR (required: the server writes its `api-url` there). */
  dataDir: string;
  timeoutMs?: number;
}

/**
 * Starts `src/server.ts` and resolves once it listens and /healthz answers 200. A stale
 * `api-url` left by a killed predecessor is removed first, so the wait sees this life's file.
 * A server that exits while starting fails at once, with its last output.
 */
export async function startServer(options: StartServerOptions): Promise<ApiServer> {
  const apiUrlFile = path.join(options.dataDir, API_URL_FILE);
  rmSync(apiUrlFile, { force: true });
  const port = options.env.PORT ?? '0';
  const proc = spawnNode(options.name ?? `server:${port}`, SERVER_ENTRY, { ...options.env, PORT: port, DATA_DIR: options.dataDir }, options);
  const url = await waitUntilReady(
    proc,
    async () => {
      if (!existsSync(apiUrlFile)) return false;
      const origin = readFileSync(apiUrlFile, 'utf8').trim();
      if (origin === '') return false;
      const res = await fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(2000) });
      return res.status === 200 && origin;
    },
    { timeoutMs: options.timeoutMs ?? 60_000 },
  );
  return Object.assign(proc, { url, port: Number(new URL(url).port), dataDir: options.dataDir });
}

/**
 * Starts `src/worker/main.ts` (`npm run worker`) and resolves once it logs that it runs
 * (needs LOG_LEVEL info or lower in `env`; info is the default).
 */
export async function startWorker(name: string, env: Record<string, string>, timeoutMs = 60_000): Promise<ManagedProcess> {
  const proc = spawnNode(name, WORKER_ENTRY, env);
  await waitUntilReady(proc, () => proc.saw(/lifecycle worker running/), { timeoutMs });
  return proc;
}
