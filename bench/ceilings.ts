/**
 * Reference processes for the public HTTP measures, started pinned like the server under test:
 * the raw node:http ceiling and the bare Fastify floor.
 */
import { spawn } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pinned, readCpuSeconds, REPO_ROOT, type CpuPlan } from './server.js';

export interface RawServer {
  url: string;
  pid: number;
  readonly cpuSeconds: () => number;
  stop(): Promise<void>;
}

/** Serves exactly `body` on every request: the cost of HTTP alone on this machine. */
export async function startRawServer(plan: CpuPlan, label: string, body: Buffer): Promise<RawServer> {
  return startBodyServer(plan, `raw-${label}`, body, 'bench/raw-server.ts', []);
}

/**
 * Serves exactly `body` from a bare Fastify 5 (no plugins, no hooks) on GET `route` (a path,
 * no query string): the cost of the framework alone, the floor under any Fastify app.
 */
export async function startBareFastify(plan: CpuPlan, label: string, body: Buffer, route: string): Promise<RawServer> {
  return startBodyServer(plan, `fastify-${label}`, body, 'bench/bare-fastify-server.ts', [route]);
}

/** `script <body-file> ...args` on the server core; the script prints its port on stdout. */
async function startBodyServer(plan: CpuPlan, label: string, body: Buffer, script: string, args: string[]): Promise<RawServer> {
  const file = path.join(tmpdir(), `bench-${process.pid}-${label}.json`);
  await writeFile(file, body);
  const argv = pinned(plan, plan.serverCpu, ['node', '--import', 'tsx', script, file, ...args]);
  const child = spawn(argv[0] ?? 'node', argv.slice(1), { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<string>((resolve, reject) => {
    if (child.stdout === null) return reject(new Error('no stdout'));
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => resolve(line.trim()));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  const pid = child.pid ?? 0;
  return {
    url: `http://127.0.0.1:${port}`,
    pid,
    cpuSeconds: () => readCpuSeconds(pid),
    async stop() {
      child.kill('SIGTERM');
      await exited;
      await rm(file, { force: true });
    },
  };
}

/** A JSON body of exactly `size` bytes (a padded string field), for a same-size ceiling. */
export function sameSizeBody(size: number): Buffer {
  const prefix = '{"pad":"';
  const suffix = '"}';
  const fill = Math.max(0, size - prefix.length - suffix.length);
  return Buffer.from(`${prefix}${'x'.repeat(fill)}${suffix}`);
}
