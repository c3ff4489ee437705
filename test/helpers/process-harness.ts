/**
 * Real processes for the process-level tests (test/process/) and `npm run check:concurrency`:
 * API servers (`src/server.ts`), workers (`src/worker/main.ts`), a private redis-server, free
 * ports, a TCP proxy that can be taken down and brought back, and bounded waits. Every child is
 * tracked and can be killed with `killAll()` (tests call it in `after`); a process exit of the
 * caller SIGKILLs whatever is left, so no child outlives a crashed test or script.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { demoAddress } from '../../src/domain/deposit-addresses/demo-addresses.js';
import { createDemoXpubs } from '../../src/domain/deposit-addresses/index.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SERVER_ENTRY = path.join(REPO_ROOT, 'src/server.ts');
const WORKER_ENTRY = path.join(REPO_ROOT, 'src/worker/main.ts');
/** Written by src/server.ts once it listens (src/embedded-secrets.ts API_URL_FILE). */
const API_URL_FILE = 'api-url';

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns a value other than undefined/false, or throws after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  { timeoutMs = 30_000, intervalMs = 100 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (performance.now() >= deadline) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await sleep(intervalMs);
  }
}

/** A TCP port on 127.0.0.1 that was free a moment ago (bound, then released). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * The environment of a child: only what a process needs to run (PATH, HOME, locale) plus
 * `extra`, so nothing of the test runner (NODE_TEST_CONTEXT, TEST_ENGINE, DATABASE_URL...) leaks.
 */
export function childEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...extra };
}

const live = new Set<ManagedProcess>();
let exitHookInstalled = false;
function track(proc: ManagedProcess): void {
  live.add(proc);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // Last resort (an uncaught error in a test or the script): no orphan keeps a port or a lock.
    process.on('exit', () => {
      for (const p of live) p.killNow('SIGKILL');
    });
  }
}

/** One child process with its recent output kept for diagnostics. */
export class ManagedProcess {
  private readonly lines: string[] = [];
  private partial = '';
  private readonly exitPromise: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
    private readonly keepLines = 300,
  ) {
    const collect = (chunk: Buffer): void => {
      const text = this.partial + chunk.toString('utf8');
      const parts = text.split('\n');
      this.partial = parts.pop() ?? '';
      for (const line of parts) this.push(line);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    this.exitPromise = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        live.delete(this);
        resolve(this.exit);
      });
      child.once('error', (error) => {
        this.push(`spawn error: ${error.message}`);
      });
    });
    track(this);
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  /** The last `n` lines of stdout and stderr. */
  tail(n = 40): string {
    const all = this.partial === '' ? this.lines : [...this.lines, this.partial];
    return all.slice(-n).join('\n');
  }

  /** Whether any output line so far matches. */
  saw(pattern: RegExp): boolean {
    return this.lines.some((line) => pattern.test(line)) || pattern.test(this.partial);
  }

  killNow(signal: NodeJS.Signals): void {
    if (this.running) {
      try {
        this.child.kill(signal);
      } catch {
        // already gone
      }
    }
  }

  /** Resolves when the process has exited, or rejects after `timeoutMs`. */
  async waitForExit(timeoutMs = 10_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${this.name} (pid ${this.pid}) did not exit within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return await Promise.race([this.exitPromise, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** kill -9 and wait until the kernel has reaped it. */
  async kill9(): Promise<void> {
    this.killNow('SIGKILL');
    await this.waitForExit(10_000);
  }

  /** SIGTERM (graceful close), then SIGKILL if it is still there after `graceMs`. */
  async stop(graceMs = 5000): Promise<void> {
    if (!this.running) return;
    this.killNow('SIGTERM');
    try {
      await this.waitForExit(graceMs);
    } catch {
      await this.kill9();
    }
  }

  private push(line: string): void {
    this.lines.push(line);
    if (this.lines.length > this.keepLines) this.lines.splice(0, this.lines.length - this.keepLines);
  }
}

/** Stops every child still running (SIGTERM, then SIGKILL); for `after` hooks and script exits. */
export async function killAll(graceMs = 3000): Promise<void> {
  await Promise.all([...live].map((proc) => proc.stop(graceMs).catch(() => proc.killNow('SIGKILL'))));
}

/** `node --import tsx <entry>` from the repository root with exactly `env`. */
export function spawnNode(name: string, entry: string, env: Record<string, string>): ManagedProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: REPO_ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new ManagedProcess(name, child);
}

export interface ApiServer extends ManagedProcess {
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
}

export interface StartServerOptions {
  name?: string;
  /** Configuration of the server; PORT and DATA_DIR are filled in when absent. */
  env: Record<string, string>;
  /** DATA_DIR (required: the server writes its `api-url` there). */
  dataDir: string;
  timeoutMs?: number;
}

/**
 * Starts `src/server.ts` and resolves once it listens and /healthz answers. A stale `api-url`
 * left by a killed predecessor is removed first, so the wait sees this life's file.
 */
export async function startServer(options: StartServerOptions): Promise<ApiServer> {
  const port = options.env.PORT !== undefined ? Number(options.env.PORT) : await freePort();
  const apiUrlFile = path.join(options.dataDir, API_URL_FILE);
  rmSync(apiUrlFile, { force: true });
  const proc = spawnNode(options.name ?? `server:${port}`, SERVER_ENTRY, {
    ...options.env,
    PORT: String(port),
    DATA_DIR: options.dataDir,
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(
      `${proc.name} to listen`,
      async () => {
        if (!proc.running) throw new ExitedError(proc);
        if (!existsSync(apiUrlFile) || readFileSync(apiUrlFile, 'utf8').trim() === '') return false;
        const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
        return res.status === 200;
      },
      { timeoutMs: options.timeoutMs ?? 60_000, intervalMs: 100 },
    );
  } catch (error) {
    proc.killNow('SIGKILL');
    throw new Error(`${proc.name} did not start: ${(error as Error).message}\n--- output ---\n${proc.tail()}`);
  }
  return Object.assign(proc, { url, port, dataDir: options.dataDir });
}

class ExitedError extends Error {
  constructor(proc: ManagedProcess) {
    super(`${proc.name} exited (${JSON.stringify(proc.exit)})`);
  }
}

/**
 * Starts `src/worker/main.ts` (`npm run worker`) and resolves once it logs that it runs
 * (needs LOG_LEVEL info or lower in `env`; info is the default).
 */
export async function startWorker(name: string, env: Record<string, string>, timeoutMs = 60_000): Promise<ManagedProcess> {
  const proc = spawnNode(name, WORKER_ENTRY, env);
  try {
    await waitFor(
      `${name} to run`,
      () => {
        if (!proc.running) throw new ExitedError(proc);
        return proc.saw(/lifecycle worker running/);
      },
      { timeoutMs, intervalMs: 100 },
    );
  } catch (error) {
    proc.killNow('SIGKILL');
    throw new Error(`${name} did not start: ${(error as Error).message}\n--- output ---\n${proc.tail()}`);
  }
  return proc;
}

/** Whether something at host:port answers the Redis PING with PONG within `timeoutMs`. */
export function redisPing(port: number, host = '127.0.0.1', timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    let answer = '';
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('utf8');
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
    socket.on('error', () => done(false));
  });
}

export interface RedisServer extends ManagedProcess {
  readonly port: number;
  readonly url: string;
}

/** A private, memory-only redis-server (from PATH) on a free port; `port` reuses one (restart). */
export async function startRedisServer(port?: number): Promise<RedisServer> {
  const chosen = port ?? (await freePort());
  const child = spawn(
    'redis-server',
    ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'],
    { stdio: ['ignore', 'pipe', 'pipe'], env: childEnv({}) },
  );
  const proc = new ManagedProcess(`redis:${chosen}`, child);
  try {
    await waitFor(`redis-server on ${chosen}`, async () => {
      if (!proc.running) throw new ExitedError(proc);
      return redisPing(chosen);
    }, { timeoutMs: 10_000 });
  } catch (error) {
    proc.killNow('SIGKILL');
    throw new Error(`${(error as Error).message}\n--- output ---\n${proc.tail()}`);
  }
  return Object.assign(proc, { port: chosen, url: `redis://127.0.0.1:${chosen}` });
}

/**
 * A TCP proxy on 127.0.0.1 in front of `target`. `down()` closes the listener and cuts every
 * connection (the target looks stopped: new connections are refused); `up()` listens again on
 * the same port. `stall()` keeps every connection open but holds the bytes (a hung server or a
 * network partition without resets: connections are accepted and nothing comes back);
 * `resume()` delivers what was held. Put a server's DATABASE_URL or REDIS_URL on `port` to make
 * its dependency fail and come back while the real one keeps running.
 */
export class TcpProxy {
  private server: net.Server | undefined;
  private readonly links = new Set<{ client: net.Socket; upstream: net.Socket; held: Array<[net.Socket, Buffer]> }>();
  private stalled = false;
  port = 0;
  /** Connections accepted so far. */
  accepted = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  get isUp(): boolean {
    return this.server !== undefined;
  }

  async up(): Promise<void> {
    if (this.server !== undefined) return;
    const server = net.createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const link of this.links) {
      link.client.destroy();
      link.upstream.destroy();
    }
    this.links.clear();
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  stall(): void {
    this.stalled = true;
  }

  resume(): void {
    this.stalled = false;
    for (const link of this.links) {
      for (const [to, chunk] of link.held.splice(0)) to.write(chunk);
    }
  }

  private accept(client: net.Socket): void {
    this.accepted += 1;
    const upstream = net.connect(this.target.port, this.target.host);
    const link = { client, upstream, held: [] as Array<[net.Socket, Buffer]> };
    this.links.add(link);
    const forward = (to: net.Socket) => (chunk: Buffer) => {
      if (this.stalled) link.held.push([to, chunk]);
      else to.write(chunk);
    };
    client.on('data', forward(upstream));
    upstream.on('data', forward(client));
    const end = (): void => {
      this.links.delete(link);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('error', end);
      socket.on('close', end);
    }
  }
}

export interface HttpResult {
  status: number;
  text: string;
  headers: Headers;
  ms: number;
}

/**
 * One HTTP call with a hard time bound (a hung request fails the caller instead of the suite).
 * `json` bodies are sent as JSON text.
 */
export async function http(
  baseUrl: string,
  method: string,
  route: string,
  options: { json?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<HttpResult> {
  const started = performance.now();
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  }
  const res = await fetch(`${baseUrl}${route}`, {
    method,
    headers,
    body,
    signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
  });
  const text = await res.text();
  return { status: res.status, text, headers: res.headers, ms: performance.now() - started };
}

/** Runs `task(i)` for i in [0, count) with at most `concurrency` in flight. */
export async function pool(count: number, concurrency: number, task: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const runners = Array.from({ length: Math.min(concurrency, count) }, async () => {
    while (next < count) {
      const index = next++;
      await task(index);
    }
  });
  await Promise.all(runners);
}

/** An operator partner with a (huge, by default) rate limit and one key, created through `apiUrl`. */
export async function createPartner(
  apiUrl: string,
  adminToken: string,
  fields: Record<string, unknown> = {},
): Promise<{ id: string; apiKey: string }> {
  const auth = { authorization: `Bearer ${adminToken}` };
  const partner = await http(apiUrl, 'POST', '/admin/v1/partners', {
    headers: auth,
    json: { name: 'Process Test Partner', rate_limit_per_minute: 1_000_000, ...fields },
  });
  if (partner.status !== 201) throw new Error(`partner create: ${partner.status} ${partner.text}`);
  const { id } = JSON.parse(partner.text) as { id: string };
  const key = await http(apiUrl, 'POST', `/admin/v1/partners/${id}/keys`, { headers: auth });
  if (key.status !== 201) throw new Error(`key create: ${key.status} ${key.text}`);
  return { id, apiKey: (JSON.parse(key.text) as { api_key: string }).api_key };
}

/**
 * DEPOSIT_XPUB_* / DEPOSIT_ADDRESS_* for the chains the order mix uses: production
 * (DATABASE_URL) gets no demo wallet, so a multi-process run configures one like an operator
 * would (public keys of a throwaway seed; nothing can be spent from them).
 */
export function depositWalletEnv(): Record<string, string> {
  const xpubs = createDemoXpubs();
  return {
    DEPOSIT_XPUB_BTC: xpubs.bitcoin,
    DEPOSIT_XPUB_LTC: xpubs.litecoin,
    DEPOSIT_XPUB_ETH: xpubs.evm,
    DEPOSIT_ADDRESS_XRP: demoAddress('xrp'),
  };
}

/**
 * The order mix: BTC, ETH and LTC sources (hd derivation) and XRP (shared address + memo
 * tag), float and fixed, including a memo destination that needs a recipient tag.
 * `ORDER_MIX[i % ORDER_MIX.length]` is the i-th order's body.
 */
export const ORDER_MIX: ReadonlyArray<Readonly<Record<string, unknown>>> = [
  {
    coin_from: 'BTC', network_from: 'BTC', coin_to: 'ETH', network_to: 'ETH', amount_from: 0.01, rate_type: 'float',
    recipient_address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  },
  {
    coin_from: 'ETH', network_from: 'ETH', coin_to: 'BTC', network_to: 'BTC', amount_from: 0.2, rate_type: 'fixed',
    recipient_address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
  },
  {
    coin_from: 'LTC', network_from: 'LTC', coin_to: 'XRP', network_to: 'XRP', amount_from: 5, rate_type: 'float',
    recipient_address: 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh', recipient_address_tag: '12345',
  },
  {
    coin_from: 'XRP', network_from: 'XRP', coin_to: 'LTC', network_to: 'LTC', amount_from: 1000, rate_type: 'float',
    recipient_address: 'ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh',
  },
];
