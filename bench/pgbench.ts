/**
 * The database ceiling: pgbench running a script of the service's own SQL against the same
 * database, with as many clients as the service's connection pool, for the same duration.
 * Per-transaction latencies come from pgbench's -l log (microseconds). `-M prepared`, as the
 * service sends its order statements (named prepared statements, src/db/prepared-statements.ts).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { percentile } from './load.js';
import { pinned, type CpuPlan } from './server.js';

export interface PgbenchOptions {
  databaseUrl: string;
  /** Script files; each is drawn with equal weight. */
  scripts: string[];
  clients: number;
  /** Seconds. */
  duration: number;
  defines: Record<string, string>;
  plan: CpuPlan;
}

export interface PgbenchResult {
  tps: number;
  p50: number;
  p99: number;
  transactions: number;
  failed: number;
  output: string;
  /** Per-transaction latencies, ms. */
  latencies: number[];
  seconds: number;
}

export async function runPgbench(options: PgbenchOptions): Promise<PgbenchResult> {
  const url = new URL(options.databaseUrl);
  const logDir = await mkdtemp(path.join(tmpdir(), 'bench-pgbench-'));
  const args = [
    'pgbench',
    '-n',
    '-M', 'prepared',
    '-c', String(options.clients),
    '-j', '1',
    '-T', String(options.duration),
    '-l', '--log-prefix', path.join(logDir, 'tx'),
    '-h', url.hostname,
    '-p', url.port || '5432',
    '-U', decodeURIComponent(url.username || 'postgres'),
    ...Object.entries(options.defines).flatMap(([name, value]) => ['-D', `${name}=${value}`]),
    ...options.scripts.flatMap((script) => ['-f', script]),
    url.pathname.slice(1),
  ];
  const argv = pinned(options.plan, options.plan.loadCpu, args);
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(argv[0] ?? 'pgbench', argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`pgbench exited with ${code}:\n${text.slice(-3000)}`))));
  });
  try {
    const latencies: number[] = [];
    let failed = 0;
    for (const file of await readdir(logDir)) {
      for (const line of (await readFile(path.join(logDir, file), 'utf8')).split('\n')) {
        // client_id transaction_no time script_no time_epoch time_us; time is µs or "failed"/"skipped"
        const time = line.split(' ')[2];
        if (time === undefined || time === '') continue;
        const us = Number(time);
        if (Number.isFinite(us)) latencies.push(us / 1000);
        else failed++;
      }
    }
    const tps = Number(/tps = ([\d.]+) \(without initial connection time\)/.exec(output)?.[1] ?? Number.NaN);
    return {
      tps: Number.isFinite(tps) ? tps : latencies.length / options.duration,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      transactions: latencies.length,
      failed,
      output,
      latencies,
      seconds: options.duration,
    };
  } finally {
    await rm(logDir, { recursive: true, force: true });
  }
}
