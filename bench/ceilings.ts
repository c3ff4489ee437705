/** Ceiling processes: the raw node:http server, started pinned like the server under test. */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
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
  const file = path.join(tmpdir(), `bench-raw-${process.pid}-${label}.json`);
  await writeFile(file, body);
  const argv = pinned(plan, plan.serverCpu, ['node', '--import', 'tsx', 'bench/raw-server.ts', file]);
  const child = spawn(argv[0] ?? 'node', argv.slice(1), { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<string>((resolve, reject) => {
    if (child.stdout === null) return reject(new Error('no stdout'));
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => resolve(line.trim()));
    child.once('exit', (code) => reject(new Error(`raw server exited with ${code}`)));
  });
  const pid = child.pid ?? 0;
  return {
    url: `http://127.0.0.1:${port}`,
    pid,
    cpuSeconds: () => readCpuSeconds(pid),
    async stop() {
      child.kill('SIGTERM');
      await exited;
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
