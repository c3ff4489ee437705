/**
 * Child processes that cannot outlive their parent: every one is tracked, `killAll()` stops
 * them (tests call it in `after`), and if the parent exits anyway (an uncaught error in a test
 * or a script) the ones left are SIGKILLed, so no orphan keeps a port, a lock or a CPU.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { GiveUp, waitFor } from './waits.js';

/**
 * The environment of a child: only what a process needs to run (PATH, HOME, locale) plus
 * `extra`, so nothing of the test runner (NODE_TEST_CONTEXT, TEST_ENGINE, DATABASE_URL...) leaks.
 */
export function childEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  // NODE_COMPILE_CACHE: the run's V8 code cache (scripts/run-tests.ts), so the servers, workers
  // and signers a test starts load their modules from it too.
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ', 'NODE_COMPILE_CACHE']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...extra };
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const live = new Set<ManagedProcess>();
let exitHookInstalled = false;
function track(proc: ManagedProcess): void {
  live.add(proc);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const p of live) p.killNow('SIGKILL');
    });
  }
}

/** One child process with its recent output kept for diagnostics. */
export class ManagedProcess {
  private readonly lines: string[] = [];
  private partial = '';
  private readonly exitPromise: Promise<ExitStatus>;
  exit: ExitStatus | undefined;

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
    private readonly keepLines = 300,
    log?: WriteStream,
  ) {
    const collect = (chunk: Buffer): void => {
      log?.write(chunk);
      const text = this.partial + chunk.toString('utf8');
      const parts = text.split('\n');
      this.partial = parts.pop() ?? '';
      for (const line of parts) this.push(line);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    this.exitPromise = new Promise((resolve) => {
      const done = (status: ExitStatus): void => {
        if (this.exit !== undefined) return;
        this.exit = status;
        live.delete(this);
        log?.end();
        resolve(status);
      };
      child.once('exit', (code, signal) => done({ code, signal }));
      // A command that cannot start (not installed) never exits: it is done at once.
      child.once('error', (error) => {
        this.push(`spawn error: ${error.message}`);
        if (child.pid === undefined) done({ code: null, signal: null });
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

  /** The first complete output line matching `pattern`, if one came yet. */
  line(pattern: RegExp): string | undefined {
    return this.lines.find((line) => pattern.test(line));
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
  async waitForExit(timeoutMs = 10_000): Promise<ExitStatus> {
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

export interface SpawnOptions {
  /** The child's whole environment (see `childEnv`). */
  env: Record<string, string>;
  cwd?: string;
  /** Also append everything the child writes to this file (kept after it exits). */
  logFile?: string;
  /** Output lines kept in memory for `tail()` (default 300). */
  keepLines?: number;
}

/** Starts `command args` as a tracked child with piped output. */
export function spawnManaged(name: string, command: string, args: readonly string[], options: SpawnOptions): ManagedProcess {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const log = options.logFile === undefined ? undefined : createWriteStream(options.logFile);
  return new ManagedProcess(name, child, options.keepLines, log);
}

/** Stops every child still running (SIGTERM, then SIGKILL); for `after` hooks and script exits. */
export async function killAll(graceMs = 3000): Promise<void> {
  await Promise.all([...live].map((proc) => proc.stop(graceMs).catch(() => proc.killNow('SIGKILL'))));
}

class ExitedError extends Error {
  constructor(proc: ManagedProcess) {
    super(`${proc.name} exited (${JSON.stringify(proc.exit)})`);
  }
}

/**
 * Waits until `ready()` gives a value (as `waitFor` does) while `proc` runs. If it exits first
 * (a missing command exits at once) or the wait times out, it is killed and this fails with its
 * last output and `hint` (how to get the command).
 */
export async function waitUntilReady<T>(
  proc: ManagedProcess,
  ready: () => Promise<T | undefined | false> | T | undefined | false,
  options: { timeoutMs?: number; hint?: string } = {},
): Promise<T> {
  try {
    return await waitFor(
      `${proc.name} to be ready`,
      () => {
        if (!proc.running) throw new GiveUp(new ExitedError(proc));
        return ready();
      },
      { timeoutMs: options.timeoutMs ?? 30_000, intervalMs: 100 },
    );
  } catch (error) {
    proc.killNow('SIGKILL');
    const hint = options.hint === undefined ? '' : `\n${options.hint}`;
    throw new Error(`${proc.name} did not start: ${(error as Error).message}${hint}\n--- output ---\n${proc.tail()}`);
  }
}
