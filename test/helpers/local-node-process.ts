import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** A free TCP port on 127.0.0.1 (the OS picks it; released just before use). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A node process started by a test; its output is kept for the failure message. */
export interface NodeProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves when the process has exited (at once if it already has). */
  exited: Promise<void>;
}

/**
 * Starts `command`; a missing binary or an early exit rejects with `hint` in the message, so a
 * test that needs a real node FAILS clearly instead of passing without one.
 */
export function startNodeProcess(command: string, args: readonly string[], hint: string): NodeProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', (error) => {
      output += `\n${command} could not start: ${error.message}. ${hint}`;
      resolve();
    });
  });
  return { child, output: () => output, exited };
}

/** Polls `ready` until it returns true; fails naming the node, with its last output. */
export async function waitUntilReady(node: NodeProcess, name: string, ready: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void node.exited.then(() => {
    exited = true;
  });
  while (Date.now() < deadline) {
    if (exited) throw new Error(`${name} exited before it was ready:\n${node.output()}`);
    if (await ready().catch(() => false)) return;
    await sleep(100);
  }
  node.child.kill('SIGKILL');
  throw new Error(`${name} was not ready after ${timeoutMs} ms:\n${node.output()}`);
}

/** SIGTERM, then SIGKILL if it lingers. */
export async function stopNodeProcess(node: NodeProcess, graceMs = 10_000): Promise<void> {
  if (node.child.exitCode !== null || node.child.signalCode !== null) return;
  node.child.kill('SIGTERM');
  const timer = setTimeout(() => node.child.kill('SIGKILL'), graceMs);
  await node.exited;
  clearTimeout(timer);
}
