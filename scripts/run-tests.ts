/**
 * `npm test`: the whole suite on PGlite, then every test that uses a database again on
 * PostgreSQL when one is reachable (TEST_DATABASE_URL, or the local `test` database).
 * Under CI, an unreachable PostgreSQL is a failure, never a silent skip.
 * Extra arguments are test files or folders to run instead of the whole suite.
 */
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { adminDatabaseUrl } from '../test/helpers/test-database.js';

const DB_MARKERS = ['helpers/test-app.js', 'helpers/test-database.js'];

function findTests(target: string): string[] {
  if (statSync(target).isFile()) return [target];
  return readdirSync(target, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => path.join(target, file))
    .sort();
}

async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: adminDatabaseUrl(), connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

interface RunResult {
  passed: number;
  failed: number;
  exitCode: number;
}

function runSuite(engine: string, files: string[]): Promise<RunResult> {
  console.log(`\n=== ${engine}: ${files.length} test files ===`);
  const child = spawn(
    process.execPath,
    // --test-force-exit: a file whose tests are done must not linger (PGlite 0.4 can leave a
    // re-arming WASM timer behind after close when a process opened several instances).
    // --test-timeout: one stuck test fails instead of holding CI until its time limit.
    [
      '--import',
      'tsx',
      '--test',
      '--test-concurrency=2',
      '--test-force-exit',
      '--test-timeout=300000',
      '--test-reporter=spec',
      ...files,
    ],
    { env: { ...process.env, TEST_ENGINE: engine }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let passed = 0;
  let failed = 0;
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    process.stdout.write(chunk);
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const match = /^ℹ (pass|fail) (\d+)$/.exec(line.trim());
      if (match?.[1] === 'pass') passed = Number(match[2]);
      if (match?.[1] === 'fail') failed = Number(match[2]);
    }
  });
  return new Promise((resolve) => {
    child.on('close', (code) => resolve({ passed, failed, exitCode: code ?? 1 }));
  });
}

const targets = process.argv.slice(2);
const files = (targets.length > 0 ? targets : ['test']).flatMap(findTests);
const dbFiles = files.filter((file) => DB_MARKERS.some((marker) => readFileSync(file, 'utf8').includes(marker)));

const results: Array<[string, RunResult]> = [['pglite', await runSuite('pglite', files)]];
if (dbFiles.length > 0) {
  if (await postgresReachable()) {
    results.push(['postgres', await runSuite('postgres', dbFiles)]);
  } else if (process.env.CI !== undefined) {
    console.error(`\nPostgreSQL is not reachable at ${adminDatabaseUrl()}: CI requires it.`);
    results.push(['postgres', { passed: 0, failed: 1, exitCode: 1 }]);
  } else {
    console.warn(`\nPostgreSQL not reachable at ${adminDatabaseUrl()}: ran on PGlite only.`);
  }
}

console.log('');
for (const [engine, result] of results) console.log(`${engine}: ${result.passed} passed, ${result.failed} failed`);
const passed = results.reduce((sum, [, r]) => sum + r.passed, 0);
const failed = results.reduce((sum, [, r]) => sum + r.failed, 0);
console.log(`${passed} passed, ${failed} failed`);
process.exit(results.every(([, r]) => r.exitCode === 0) && failed === 0 ? 0 : 1);
