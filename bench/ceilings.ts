/**
 * Reference processes for the public HTTP measures, started pinned like the server under test:
 * the raw node:http ceiling and the bare Fastify floor.
 */
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnNode } from '../test/helpers/process/app-server.js';
import { waitUntilReady } from '../test/helpers/process/managed-process.js';
import { readCpuSeconds, type CpuPlan } from './server.js';

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
  const proc = spawnNode(`bench:${label}`, script, {}, { wrapper: plan.taskset ? ['taskset', '-c', plan.serverCpu] : [], args: [file, ...args] });
  const port = await waitUntilReady(proc, () => proc.line(/^\d+$/), { timeoutMs: 30_000 });
  const { pid } = proc;
  return {
    url: `http://127.0.0.1:${port}`,
    pid,
    cpuSeconds: () => readCpuSeconds(pid),
    async stop() {
      await proc.stop(10_000);
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
