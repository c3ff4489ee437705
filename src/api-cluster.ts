import cluster, { type Worker } from 'node:cluster';
import { readFileSync, unlinkSync } from 'node:fs';
import { serveClusterMetrics } from './metrics-cluster.js';

/** A worker that dies this soon after its start is not restarted (it would fail again). */
const CRASH_LOOP_MS = 5000;

export interface ClusterStop {
  /** How long the workers' graceful stop may take (SHUTDOWN_DELAY_MS + SHUTDOWN_TIMEOUT_MS), ms. */
  workerStopMs: number;
  /** DATA_DIR/api-url: the workers write it; the primary removes it once they have all stopped. */
  apiUrlFile: string;
}

/**
 * The primary of `processes` API processes: it serves nothing itself (the app is never loaded
 * here), forks the workers, each a whole API process listening on the same port (the primary
 * hands connections out round robin), restarts one that dies after it was up, and on SIGTERM or
 * SIGINT passes the signal on to each, which stops gracefully (drains, src/server.ts), before it
 * exits. Only the first runs the lifecycle worker (when WORKER is not off); the others serve
 * requests only.
 */
export function runApiCluster(processes: number, { workerStopMs, apiUrlFile }: ClusterStop): void {
  const log = (message: string) => process.stderr.write(`${JSON.stringify({ level: 40, time: Date.now(), pid: process.pid, msg: message })}\n`);
  let stopping = false;
  let exitCode = 0;
  const started = new Map<Worker, { slot: number; at: number }>();
  // The origin the workers wrote to api-url (they all share one port): removed at the end only
  // if the file still says it, so another instance's own is left alone.
  let apiUrl: string | undefined;
  const exit = (code: number) => {
    try {
      if (apiUrl !== undefined && readFileSync(apiUrlFile, 'utf8').trim() === apiUrl) unlinkSync(apiUrlFile);
    } catch {
      // already gone
    }
    process.exit(code);
  };
  const fork = (slot: number) => {
    const env = slot === 0 ? {} : { WORKER: 'off' };
    const worker = cluster.fork(env);
    worker.on('message', (message: { apiUrl?: unknown }) => {
      if (typeof message?.apiUrl === 'string') apiUrl = message.apiUrl;
    });
    started.set(worker, { slot, at: Date.now() });
  };
  cluster.on('exit', (worker, code, signal) => {
    const info = started.get(worker);
    started.delete(worker);
    if (stopping) {
      if (started.size === 0) exit(exitCode);
      return;
    }
    if (info === undefined) return;
    if (Date.now() - info.at < CRASH_LOOP_MS) {
      log(`API process ${worker.process.pid} exited at start (${signal ?? code}); stopping the others`);
      stop(1);
      return;
    }
    log(`API process ${worker.process.pid} exited (${signal ?? code}); starting another`);
    fork(info.slot);
  });
  const stop = (code: number, signal: NodeJS.Signals = 'SIGTERM') => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    // A worker that does not stop within its own limit must not keep the primary forever.
    setTimeout(() => process.exit(1), workerStopMs + 5000).unref();
    if (started.size === 0) exit(exitCode);
    // The same signal: SIGTERM drains with SHUTDOWN_DELAY_MS, SIGINT (Ctrl-C) without it.
    for (const worker of started.keys()) worker.process.kill(signal);
  };
  process.once('SIGTERM', () => stop(0, 'SIGTERM'));
  process.once('SIGINT', () => stop(0, 'SIGINT'));
  // A scrape of any process answers for all of them (src/metrics-cluster.ts).
  serveClusterMetrics();
  for (let slot = 0; slot < processes; slot++) fork(slot);
}
