/**
 * The PGlite ceiling: the captured statement(s) of one order creation replayed raw on a
 * file-backed PGlite (as the server's), with fresh ids per order, one order after another, in a process pinned to the
 * server's core. No HTTP, JSON, validation, pricing or address derivation: just the engine.
 *
 * Run as a child: `node --import tsx bench/pglite-loop.ts <capture.json> <seconds>` prints
 * one JSON line { tps, p50, p99, orders }.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import { migrateToLatest } from '../src/db/migrate.js';
import type { Database } from '../src/db/schema/index.js';
import { TYPE_PARSERS } from '../src/db/type-parsers.js';
import { createParameters, isCreateStatement, type OrderSqlCapture, type ParameterRole } from './capture-sql.js';
import { percentile } from './load.js';
import { pinned, REPO_ROOT, type CpuPlan } from './server.js';

export interface LoopResult {
  tps: number;
  p50: number;
  p99: number;
  orders: number;
  seconds: number;
  latencies: number[];
}

/** Runs the loop for `seconds` in its own process on the server core, on a fresh database. */
export async function runPgliteLoop(plan: CpuPlan, capture: OrderSqlCapture, seconds: number): Promise<LoopResult> {
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-loop-'));
  const file = path.join(dir, 'capture.json');
  await writeFile(file, JSON.stringify(capture));
  try {
    const argv = pinned(plan, plan.serverCpu, ['node', '--import', 'tsx', 'bench/pglite-loop.ts', file, String(seconds)]);
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn(argv[0] ?? 'node', argv.slice(1), { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      child.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`pglite loop exited with ${code}`))));
    });
    return JSON.parse(output.trim().split('\n').pop() ?? '{}') as LoopResult;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function main(captureFile: string, seconds: number): Promise<void> {
  const capture = JSON.parse(await readFile(captureFile, 'utf8')) as OrderSqlCapture;
  const dataDir = await mkdtemp(path.join(tmpdir(), 'bench-loop-pglite-'));
  const client = await PGlite.create({ dataDir: path.join(dataDir, 'pglite'), parsers: { ...TYPE_PARSERS } });
  try {
    const db = new Kysely<Database>({ dialect: new PGliteDialect(client) });
    await migrateToLatest(db);
    const partner = await client.query<{ id: string }>(`insert into partners (name, rate_limit_per_minute) values ('loop', 1000000) returning id`);
    const partnerId = partner.rows[0]?.id ?? '';
    const keyId = 'pk_loop00000000000000';
    await client.query(
      `insert into api_keys (key_id, partner_id, secret_hash, secret_ciphertext) values ($1, $2, $3, $4)`,
      [keyId, partnerId, Buffer.alloc(32), Buffer.alloc(1)],
    );
    const currencies = await client.query<{ id: string; coin: string }>(
      `select id, coin from currencies where (coin, network) in (('BTC', 'BTC'), ('ETH', 'ETH'))`,
    );
    const fixed: Partial<Record<ParameterRole, unknown>> = {
      key_id: keyId,
      partner_id: partnerId,
      currency_from_id: currencies.rows.find((row) => row.coin === 'BTC')?.id,
      currency_to_id: currencies.rows.find((row) => row.coin === 'ETH')?.id,
    };

    let sequence = 0;
    const oneOrder = async () => {
      const now = new Date();
      const values: Partial<Record<ParameterRole, unknown>> = { ...fixed, now, expires_at: new Date(now.getTime() + 30 * 60_000) };
      for (const [i, statement] of capture.create.statements.entries()) {
        const roles = capture.create.roles[i] ?? [];
        const parameters = statement.parameters.map((value, j) => {
          const role = roles[j];
          return role === null || role === undefined ? value : values[role];
        });
        if (isCreateStatement(statement.sql)) {
          sequence += 1;
          await client.query(
            statement.sql,
            createParameters(statement.parameters, {
              id: randomUUID(),
              shortId: `PL-${sequence.toString(36).toUpperCase().padStart(6, '0')}`,
              address: `bc1qpgliteloop${sequence}`,
              n: sequence,
              partnerId,
              currencyFromId: String(fixed.currency_from_id),
              currencyToId: String(fixed.currency_to_id),
              now,
              expiresAt: new Date(now.getTime() + 30 * 60_000),
              maxOpenOrders: 1_000_000,
            }),
          );
          continue;
        }
        const result = await client.query<{ n?: number }>(statement.sql, parameters);
        const n = /nextval/.test(statement.sql) ? result.rows[0]?.n : undefined;
        if (n !== undefined) {
          values.n = n;
          values.order_id = randomUUID();
          values.short_id = `PL-${n.toString(36).toUpperCase().padStart(6, '0')}`;
          values.address = `bc1qpgliteloop${n}`;
        }
      }
    };

    // Warm-up, not counted.
    for (let i = 0; i < 200; i++) await oneOrder();
    const latencies: number[] = [];
    const start = performance.now();
    const end = start + seconds * 1000;
    for (let t = start; t < end; ) {
      await oneOrder();
      const after = performance.now();
      latencies.push(after - t);
      t = after;
    }
    const elapsed = (performance.now() - start) / 1000;
    const result: LoopResult = {
      tps: latencies.length / elapsed,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      orders: latencies.length,
      seconds: elapsed,
      latencies,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await client.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [captureFile, seconds] = process.argv.slice(2);
  if (captureFile === undefined) throw new Error('usage: pglite-loop.ts <capture.json> <seconds>');
  await main(captureFile, Number(seconds ?? 5));
}
