/**
 * The server under test: a real server process run as `npm start` runs it (dist/server.js, built
 * once per bench run, with the start script's NODE_OPTIONS, then BENCH_NODE_OPTIONS when set, as
 * an operator's own would come) with production-like settings, pinned to the server core when
 * taskset is available, on a fresh PostgreSQL database (created here, dropped on stop) or a fresh
 * PGlite directory. It is started and stopped by the same code as the process tests' servers
 * (test/helpers/process/app-server.ts).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ADMIN_TOKEN_FILE } from '../src/embedded-secrets.js';
import { buildServer, DIST_DIR, startServer as startAppServer, type ApiServer } from '../test/helpers/process/app-server.js';

/** The repository (the process harness finds it the same way). */
export { REPO_ROOT } from '../test/helpers/process/app-server.js';

/** The server's PostgreSQL: the machine's local cluster (trust auth). */
export const ADMIN_DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** BIP-84 account xpub of the public "abandon ... about" test mnemonic: watch-only, never funded. */
export const TEST_ZPUB =
  'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';

/** Cores: the server (and every ceiling) on one, the load generator on the other. */
export interface CpuPlan {
  taskset: boolean;
  serverCpu: string;
  loadCpu: string;
  note: string;
}

export function planCpus(): CpuPlan {
  const available = spawnSync('taskset', ['-p', String(process.pid)], { encoding: 'utf8' }).status === 0;
  const cpus = onlineCpus();
  if (!available || cpus.length < 2) {
    return { taskset: false, serverCpu: '', loadCpu: '', note: `no pinning (taskset ${available ? 'found' : 'missing'}, ${cpus.length} cpu)` };
  }
  const [serverCpu, loadCpu] = [String(cpus[0]), String(cpus[1])];
  return { taskset: true, serverCpu, loadCpu, note: `server and ceilings on cpu ${serverCpu}, load generator on cpu ${loadCpu}` };
}

function onlineCpus(): number[] {
  const result = spawnSync('taskset', ['-cp', String(process.pid)], { encoding: 'utf8' });
  const list = /list:\s*(\S+)/.exec(result.stdout ?? '')?.[1];
  if (list === undefined) return [];
  return list.split(',').flatMap((part) => {
    const [a, b] = part.split('-').map(Number);
    if (a === undefined || Number.isNaN(a)) return [];
    const end = b ?? a;
    return Array.from({ length: end - a + 1 }, (_, i) => a + i);
  });
}

/** Pins this process (every thread, including autocannon's) to the load generator's core. */
export function pinSelf(plan: CpuPlan): void {
  if (plan.taskset) spawnSync('taskset', ['-a', '-cp', plan.loadCpu, String(process.pid)], { stdio: 'ignore' });
}

/** argv prefixed with taskset when pinning is possible. */
export function pinned(plan: CpuPlan, cpu: string, argv: string[]): string[] {
  return plan.taskset ? ['taskset', '-c', cpu, ...argv] : argv;
}

export interface ServerOptions {
  engine: 'postgres' | 'pglite';
  label: string;
  plan: CpuPlan;
  /**
   * Directory for V8 CPU profiles (node --cpu-prof), written when the server exits: one per
   * thread, default names `CPU.<date>.<time>.<pid>.<tid>.<seq>`.
   */
  cpuProfDir?: string | undefined;
  env?: Record<string, string>;
  /**
   * API processes (WEB_CONCURRENCY, PostgreSQL only), default 1. Above 1 the server is not
   * pinned (its processes may use every core), and CPU and RSS are summed over its processes.
   */
  processes?: number;
  /**
   * PGlite only: a DATA_DIR of the caller's, kept when the server stops (so a second server can
   * start on what the first left, as after a restart), and the embedded default's secrets: no
   * SECRETS_KEY or ADMIN_TOKEN in the environment, so the server generates them into DATA_DIR
   * on its first start and reads them back on the next (`adminToken` is read from there).
   */
  dataDir?: string;
}

export interface RunningServer {
  readonly url: string;
  readonly pid: number;
  readonly adminToken: string;
  readonly databaseUrl: string | undefined;
  /** Current and peak resident set size, bytes. */
  readonly memory: () => { rss: number; peak: number };
  /** User + system CPU seconds used so far. */
  readonly cpuSeconds: () => number;
  stop(): Promise<void>;
}

/** Settings a production API process would run with (see bench/README.md). */
export const PRODUCTION_LIKE_ENV: Readonly<Record<string, string>> = {
  NODE_ENV: 'production',
  LOG_LEVEL: 'info',
  LOG_REQUESTS: 'false',
  WORKER: 'off',
};

let built = false;

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  if (!built) {
    buildServer(DIST_DIR);
    built = true;
  }
  const processes = options.processes ?? 1;
  const ownDataDir = options.dataDir !== undefined;
  if (ownDataDir && options.engine !== 'pglite') throw new Error('a caller\'s DATA_DIR is for the embedded default (PGlite) only');
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), `bench-${options.label}-`)));
  let adminToken = randomBytes(36).toString('base64url');
  let databaseUrl: string | undefined;
  let databaseName: string | undefined;
  const cleanup = async () => {
    if (databaseName !== undefined) await adminQuery(`drop database if exists ${databaseName} with (force)`).catch(() => undefined);
    if (!ownDataDir) await rm(dataDir, { recursive: true, force: true }).catch(() => undefined);
  };
  if (options.engine === 'postgres') {
    databaseName = `bench_${options.label.replace(/\W/g, '_')}_${process.pid}_${randomBytes(3).toString('hex')}`;
    await adminQuery(`create database ${databaseName}`);
    const url = new URL(ADMIN_DATABASE_URL);
    url.pathname = `/${databaseName}`;
    databaseUrl = url.toString();
  }
  let server: ApiServer;
  try {
    server = await startAppServer({
      name: `bench:${options.label}`,
      dataDir,
      env: {
        ...PRODUCTION_LIKE_ENV,
        HOST: '127.0.0.1',
        ...(ownDataDir ? {} : { SECRETS_KEY: randomBytes(32).toString('hex'), ADMIN_TOKEN: adminToken }),
        ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl, DEPOSIT_XPUB_BTC: TEST_ZPUB, SIMULATE_LIVE_PAYOUTS: 'true' }),
        ...(processes > 1 ? { WEB_CONCURRENCY: String(processes) } : {}),
        // After the start script's own, as an operator's NODE_OPTIONS: to compare heap settings.
        ...(process.env.BENCH_NODE_OPTIONS === undefined ? {} : { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS }),
        ...options.env,
      },
      compiledDir: DIST_DIR,
      nodeOptions: options.cpuProfDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', options.cpuProfDir],
      wrapper: options.plan.taskset && processes === 1 ? ['taskset', '-c', options.plan.serverCpu] : [],
      logFile: path.join(dataDir, ownDataDir ? `server-${options.label}.log` : 'server.log'),
      // A loaded shared machine has taken over 90 s to start a PGlite server (initdb, migrations, demo pools).
      timeoutMs: 180_000,
    });
  } catch (error) {
    await cleanup();
    throw error;
  }
  if (ownDataDir) adminToken = (await readFile(path.join(dataDir, ADMIN_TOKEN_FILE), 'utf8')).trim();
  const { pid } = server;
  return {
    url: server.url,
    pid,
    adminToken,
    databaseUrl,
    memory: () => processTree(pid).reduce((sum, one) => {
      const memory = readMemory(one);
      return { rss: sum.rss + memory.rss, peak: sum.peak + memory.peak };
    }, { rss: 0, peak: 0 }),
    cpuSeconds: () => processTree(pid).reduce((sum, one) => sum + readCpuSeconds(one), 0),
    async stop() {
      // Graceful, so that --cpu-prof writes its profile; SIGKILL after 20 s.
      await server.stop(20_000);
      await cleanup();
    },
  };
}

async function adminQuery(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_DATABASE_URL, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * The process and its descendants (a WEB_CONCURRENCY primary's workers), from /proc. Summed peaks
 * are an upper bound: the processes need not peak at the same moment.
 */
export function processTree(root: number): number[] {
  let parents: Map<number, number[]>;
  try {
    parents = new Map();
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
      } catch {
        // gone meanwhile
      }
    }
  } catch {
    return [root];
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(parents.get(tree[i] ?? -1) ?? []));
  return tree;
}

/** VmRSS and VmHWM (peak) from /proc, in bytes; zeros where /proc is unavailable. */
export function readMemory(pid: number): { rss: number; peak: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0) * 1024;
    return { rss: kb('VmRSS'), peak: kb('VmHWM') };
  } catch {
    return { rss: 0, peak: 0 };
  }
}

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim() || 100);

/** utime + stime of a process, seconds. */
export function readCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After "pid (comm) ", field 3 (state) is index 0: utime is field 14, stime 15.
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}
