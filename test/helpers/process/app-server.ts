/**
 * The service's own processes: an API server (`src/server.ts`) and a lifecycle worker
 * (`src/worker/main.ts`), compiled as `npm start` runs them (`compiledDir`: scripts/build.mjs's
 * output; under `npm test` the run's own build, test/helpers/compiled-src.ts; the bench and the
 * Node.js LTS smoke test build dist/), or from src/ through tsx (a test file run alone). Used by the process tests (test/process/),
 * `npm run check:concurrency`, the bench and the smoke test.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_URL_FILE } from '../../../src/embedded-secrets.js';
import { COMPILED_DIR } from '../compiled-src.js';
import { childEnv, spawnManaged, waitUntilReady, type ManagedProcess } from './managed-process.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** Where `npm run build` (scripts/build.mjs) writes the compiled server, and `npm start` runs it. */
export const DIST_DIR = path.join(REPO_ROOT, 'dist');
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
 * `node --import tsx <entry>` (a .ts entry) or `node <entry>` (compiled JavaScript) from the
 * repository root with exactly `env` (see childEnv), plus a PostgreSQL connect timeout of 10 s
 * unless `env` names one: a loaded test machine can take more than the 2 s default to start a
 * backend when a burst opens a whole pool at once.
 */
export function spawnNode(name: string, entry: string, env: Record<string, string>, options: NodeProcessOptions = {}): ManagedProcess {
  const loader = entry.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const argv = [...(options.wrapper ?? []), process.execPath, ...(options.nodeOptions ?? []), ...loader, entry, ...(options.args ?? [])];
  const [command = process.execPath, ...args] = argv;
  const withTimeout = { DATABASE_CONNECT_TIMEOUT_MS: '10000', ...env };
  return spawnManaged(name, command, args, { env: childEnv(withTimeout), cwd: REPO_ROOT, logFile: options.logFile });
}

/**
 * The NODE_OPTIONS `npm start` gives the server by default (package.json's start script:
 * `NODE_OPTIONS="<these> $NODE_OPTIONS" node dist/server.js`, so an operator's own NODE_OPTIONS
 * come after and win), read from there so that what the bench measures cannot drift from it.
 */
export function npmStartNodeOptions(): string {
  const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  const start = manifest.scripts?.start ?? '';
  const match = /^NODE_OPTIONS="([^"$]*?) ?\$NODE_OPTIONS" node dist\/server\.js$/.exec(start);
  if (match?.[1] === undefined) throw new Error(`package.json's start script is not NODE_OPTIONS="<options> $NODE_OPTIONS" node dist/server.js: ${start}`);
  return match[1];
}

/**
 * `node scripts/build.mjs --outdir <outdir>` (what `npm run build` and `npm start` run): src/
 * compiled into `outdir`, a directory directly in the repository root (default dist/). About a
 * second; throws with the build's output when it fails.
 */
export function buildServer(outdir = DIST_DIR): void {
  const result = spawnSync(process.execPath, [path.join(REPO_ROOT, 'scripts/build.mjs'), '--outdir', outdir], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`building the server failed (${result.status ?? result.signal}): ${result.stderr}${result.stdout}`);
}

export interface ApiServer extends ManagedProcess {
  /** Origin the server listens on, as it wrote it to DATA_DIR/api-url (the operator listener's with ADMIN_PORT). */
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
  /**
   * Run `<compiledDir>/server.js` (the output of `node scripts/build.mjs --outdir <dir>`, built by
   * the caller; DIST_DIR is what `npm start` runs) as `npm start` runs it, with its NODE_OPTIONS
   * (npmStartNodeOptions; `env.NODE_OPTIONS` is added after them), instead of `src/server.ts`
   * through tsx. The directory must sit directly in the repository root, as dist/ does. Default:
   * the run's compiled src/ under `npm test` (TEST_COMPILED_DIR), else none.
   */
  compiledDir?: string;
}

/**
 * Spawns `src/server.ts` (or the compiled `server.js`, see StartServerOptions.compiledDir) with
 * PORT 0 unless given and DATA_DIR `dataDir`, and returns at once, without waiting for it to
 * listen (a test of the start itself watches its output; startServer waits). A stale `api-url`
 * left by a killed predecessor is removed first.
 */
export function spawnServer(options: Omit<StartServerOptions, 'timeoutMs'>): ManagedProcess {
  rmSync(path.join(options.dataDir, API_URL_FILE), { force: true });
  const port = options.env.PORT ?? '0';
  let entry = SERVER_ENTRY;
  // SHUTDOWN_DELAY_MS 0 unless given: no load balancer waits on a test's server, and every test
  // stops its servers (the shutdown test sets its own).
  let env: Record<string, string> = { SHUTDOWN_DELAY_MS: '0', ...options.env, PORT: port, DATA_DIR: options.dataDir };
  // Under `npm test`, the run's compiled src/ (test/helpers/compiled-src.ts) unless told otherwise.
  const compiledDir = options.compiledDir ?? COMPILED_DIR;
  if (compiledDir !== undefined) {
    entry = path.join(compiledDir, 'server.js');
    env = { ...env, NODE_OPTIONS: `${npmStartNodeOptions()} ${options.env.NODE_OPTIONS ?? ''}`.trim() };
  }
  return spawnNode(options.name ?? `server:${port}`, entry, env, options);
}

/**
 * Starts `src/server.ts` (or the compiled `server.js`) and resolves once it listens and /healthz answers 200. A stale
 * `api-url` left by a killed predecessor is removed first, so the wait sees this life's file.
 * A server that exits while starting fails at once, with its last output.
 */
export async function startServer(options: StartServerOptions): Promise<ApiServer> {
  const apiUrlFile = path.join(options.dataDir, API_URL_FILE);
  const proc = spawnServer(options);
  const url = await waitUntilReady(
    proc,
    async () => {
      if (!existsSync(apiUrlFile)) return false;
      const origin = readFileSync(apiUrlFile, 'utf8').trim();
      if (origin === '') return false;
      const res = await fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(2000) });
      // With ADMIN_PORT, api-url names the operator listener, which answers only the operator
      // surface (404 for /healthz): an answer at all says it listens.
      const answered = res.status === 200 || (options.env.ADMIN_PORT !== undefined && res.status === 404);
      return answered && origin;
    },
    { timeoutMs: options.timeoutMs ?? 60_000 },
  );
  return Object.assign(proc, { url, port: Number(new URL(url).port), dataDir: options.dataDir });
}

/**
 * Starts `src/worker/main.ts` through tsx, or `<compiledDir>/worker/main.js` as `npm run worker`
 * runs it, and resolves once it logs that it runs (needs LOG_LEVEL info or lower in `env`; info
 * is the default).
 */
export async function startWorker(name: string, env: Record<string, string>, timeoutMs = 60_000, compiledDir = COMPILED_DIR): Promise<ManagedProcess> {
  const proc = spawnNode(name, compiledDir === undefined ? WORKER_ENTRY : path.join(compiledDir, 'worker', 'main.js'), env);
  await waitUntilReady(proc, () => proc.saw(/lifecycle worker running/), { timeoutMs });
  return proc;
}
