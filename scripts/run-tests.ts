/**
 * `npm test [-- <file or folder>...]`: the whole suite on PGlite, and every test that uses a
 * database again on PostgreSQL when one is reachable (TEST_DATABASE_URL, or the local `test`
 * database). Arguments are test files or folders to run instead of `test/`.
 *
 * - Each engine's pass is a process of its own (scripts/test-pass.ts), so the two run side by
 *   side: their files wait on PostgreSQL, child servers and nodes about as much as they compute.
 *   The first pass prints as it goes; the other's output follows when the first is done.
 * - Fresh databases are copies of a template migrated once per run (test/helpers/test-database.ts).
 * - src/ is compiled once per run into dist-test/ (scripts/build.mjs, as `npm start` builds
 *   dist/): the servers, workers, CLI and PGlite processes the tests start run it without tsx
 *   (test/helpers/compiled-src.ts), about 2 s of CPU less per process start.
 * - A suite whose outside tool is missing (PostgreSQL, Redis, redis-server, litecoind, anvil:
 *   test/helpers/requirements.ts) is skipped, and the summary says which and how to get it.
 *   Under CI (`CI` set) nothing may be skipped for that reason: the run fails.
 * - The summary counts from node:test's events (scripts/test-report.ts): a test cancelled by a
 *   failed hook, a file that timed out or crashed, is a failure. Its last line is
 *   `N passed, N failed` (`, N skipped` when any were), alone on its line: CI reads it.
 *
 * - Files that start no process run in groups, several to a process (scripts/test-groups.ts):
 *   a process per file spent a third of the suite's CPU importing the app.
 *
 * - The PostgreSQL pass runs through a pgbouncer in transaction mode that this runner starts
 *   (scripts/pgbouncer.ts), with LISTEN on the direct connection (DATABASE_DIRECT_URL): the
 *   `pgbouncer` pass. Files tagged `// test-direct: postgres` (a representative set: every kind
 *   of query path) run once more straight on PostgreSQL, as a deployment without a pooler has
 *   it (named prepared statements, LISTEN on DATABASE_URL): the `postgres` pass. Without
 *   pgbouncer on PATH (outside CI) the whole PostgreSQL pass runs directly instead. ADR 0045.
 *
 * TEST_CONCURRENCY: test files (or groups) at once per pass (default 2).
 * TEST_GROUPS=0: every file in a process of its own (slower; to rule out a group's sharing).
 * TEST_TIMINGS=<file>: also write every file's (or group's) wall time there
 * (`engine<TAB>seconds<TAB>file`, slowest first), to find what to make faster; the summary
 * ends with the ten slowest test files of the run either way.
 * TEST_CPU=<file>: also write every test process's CPU seconds there, its own and those of the
 * processes it started (scripts/test-process.mjs), and end the summary with the ten costliest:
 * on two cores the suite is CPU-bound, so CPU, not wall time, says what to make cheaper.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Engine } from '../src/db/database.js';
import { MISSING_TOOL, onPath } from '../test/helpers/requirements.js';
import { adminDatabaseUrl, createTemplate, dropRunDatabases, RUN_ID_ENV, type DatabaseTemplate } from '../test/helpers/test-database.js';
import { GROUP_FILE_PATTERN, writeGroups } from './test-groups.js';
import { startPgbouncer, type Pgbouncer } from './pgbouncer.js';
import { preloadEnv } from './test-preload.js';
import { importGraph } from './test-imports.js';
import { parseReport, summarize, type PassSummary } from './test-report.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PASS_SCRIPT = path.join(REPO_ROOT, 'scripts/test-pass.ts');
/** Where src/ is compiled for the run: directly in the repository root, as dist/ (gitignored). */
const COMPILED_DIR = path.join(REPO_ROOT, 'dist-test');
/**
 * A test file that imports one of these, directly or through any helper it imports, gets a
 * database, so it runs on both engines (scripts/test-imports.ts).
 */
const DB_HELPERS = ['test/helpers/test-app.ts', 'test/helpers/test-database.ts'].map((file) => path.join(REPO_ROOT, file));
/**
 * A test file that uses one of these starts processes (servers, the CLI, chain nodes): among
 * the longest and the heaviest at start-up. The PGlite pass starts them first, so it does not
 * end on one of them alone; the PostgreSQL pass runs them last, while the PGlite
 * pass still has work: the two passes never start all their servers at the same moment.
 */
const PROCESS_MARKERS = ['process/app-server.js', 'check-concurrency.js', 'startRedisServer', 'startLitecoind', 'startAnvil', 'execFile(', 'spawn('];
const CONCURRENCY = Number(process.env.TEST_CONCURRENCY ?? 2);
if (!Number.isInteger(CONCURRENCY) || CONCURRENCY < 1) {
  console.error(`TEST_CONCURRENCY must be a whole number of test files at once, at least 1; got ${process.env.TEST_CONCURRENCY}`);
  process.exit(2);
}
const CI = process.env.CI !== undefined;
/**
 * V8's code cache for every module a test process or a process it starts compiles (Node.js
 * 22.1 and later; Node 20 ignores it), kept between runs beside the other caches in
 * node_modules. A run starts a few hundred Node.js processes (test files, servers, the signer 51
 * times over) that load the same few thousand modules: one import of the compiled app took
 * 0.94 s of CPU without the cache and 0.64 s with it (under tsx 0.15 s less). The children a
 * test starts get it through childEnv (test/helpers/process/managed-process.ts). An operator's
 * own NODE_COMPILE_CACHE is kept.
 */
const COMPILE_CACHE = process.env.NODE_COMPILE_CACHE ?? path.join(REPO_ROOT, 'node_modules', '.cache', 'node-compile-cache');
const GROUPED = process.env.TEST_GROUPS !== '0';
const POSTGRES_HINT =
  "install Debian's `postgresql` package (a database named `test` that user postgres reaches from 127.0.0.1) or point TEST_DATABASE_URL at a server";

function findTests(target: string): string[] {
  if (statSync(target).isFile()) return [target];
  return readdirSync(target, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts') && !file.split(path.sep).includes('node_modules'))
    .map((file) => path.join(target, file))
    .sort();
}

async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: adminDatabaseUrl(), connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
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

/**
 * The terminal, shared by passes that run at once: the first pass writes through, the others
 * are held until every pass before them has finished, so no two passes' lines interleave.
 */
class Terminal {
  private readonly held = new Map<number, Array<[NodeJS.WriteStream, Buffer]>>();
  private readonly done = new Set<number>();
  private current = 0;

  write(lane: number, target: NodeJS.WriteStream, chunk: Buffer): void {
    if (lane === this.current) target.write(chunk);
    else this.held.set(lane, [...(this.held.get(lane) ?? []), [target, chunk]]);
  }

  finish(lane: number): void {
    this.done.add(lane);
    while (this.done.has(this.current)) {
      this.current += 1;
      for (const [target, chunk] of this.held.get(this.current) ?? []) target.write(chunk);
      this.held.delete(this.current);
    }
  }
}

interface PassResult {
  engine: Engine;
  /** The pass's name: its engine, or `pgbouncer` for PostgreSQL through the pooler (then `postgres` is the direct set). */
  label: string;
  summary: PassSummary;
  exitCode: number;
  ms: number;
}

const children = new Set<ReturnType<typeof spawn>>();

const CPU_LOG = process.env.TEST_CPU === undefined ? undefined : path.resolve(process.env.TEST_CPU);
/** The ten costliest test processes of the run and the total (TEST_CPU). */
function printCpu(log: string): void {
  let text = '';
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    console.log(`\nno CPU accounting was written to ${log}`);
    return;
  }
  const rows = text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { file: string; engine: string; pooled: boolean; own: number; children: number });
  const total = rows.reduce((sum, row) => sum + row.own + row.children, 0);
  console.log(`\nCPU of the test processes and what they started: ${total.toFixed(0)} s in ${rows.length} processes; the costliest:`);
  for (const row of rows.sort((a, b) => b.own + b.children - (a.own + a.children)).slice(0, 10)) {
    const label = row.pooled ? 'pgbouncer' : row.engine;
    console.log(`  ${(row.own + row.children).toFixed(1).padStart(7)} s (own ${row.own.toFixed(1)})  ${label.padEnd(9)}  ${relative(row.file)}`);
  }
}

function runPass(lane: number, terminal: Terminal, engine: Engine, label: string, files: string[], fileCount: number, env: Record<string, string>, workDir: string): Promise<PassResult> {
  const reportFile = path.join(workDir, `${label}.jsonl`);
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', PASS_SCRIPT, reportFile, String(CONCURRENCY), ...files], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env, ...preloadEnv(process.env.NODE_OPTIONS, CPU_LOG), NODE_COMPILE_CACHE: COMPILE_CACHE, TEST_ENGINE: engine },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const processes = files.length === fileCount ? '' : ` in ${files.length} processes`;
  terminal.write(lane, process.stdout, Buffer.from(`\n=== ${label}: ${fileCount} test files${processes}, ${CONCURRENCY} at a time ===\n`));
  child.stdout.on('data', (chunk: Buffer) => terminal.write(lane, process.stdout, chunk));
  child.stderr.on('data', (chunk: Buffer) => terminal.write(lane, process.stderr, chunk));
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      children.delete(child);
      terminal.finish(lane);
      let text = '';
      try {
        text = readFileSync(reportFile, 'utf8');
      } catch {
        // the pass died before it wrote anything: its exit code says so below
      }
      resolve({ engine, label, summary: summarize(parseReport(text)), exitCode: code ?? (signal === null ? 1 : 128), ms: performance.now() - started });
    });
  });
}

/** A template for `engine`, or undefined (each test database is then migrated on its own). */
async function template(engine: Engine, workDir: string): Promise<DatabaseTemplate | undefined> {
  const started = performance.now();
  try {
    const created = await createTemplate(engine, path.join(workDir, 'pglite-template.tar'));
    console.log(`${engine}: template database migrated in ${seconds(performance.now() - started)}`);
    return created;
  } catch (error) {
    console.error(`${engine}: could not make the template database (${(error as Error).message}); each test database is migrated instead`);
    return undefined;
  }
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
/** Each group file's members (scripts/test-groups.ts), to name a group by what it ran. */
const groupMembers = new Map<string, string[]>();
const relative = (file: string): string => {
  const members = groupMembers.get(file);
  if (members === undefined) return path.relative(REPO_ROOT, file);
  return `group of ${members.length} (${members.map((member) => path.relative(REPO_ROOT, member)).join(' ')})`;
};

const targets = process.argv.slice(2);
/** The suite: test/ and each workspace's tests (packages/sdk/test). */
const DEFAULT_TARGETS = ['test', ...readdirSync(path.join(REPO_ROOT, 'packages')).map((name) => path.join('packages', name, 'test')).filter((dir) => existsSync(dir))];
const sources = new Map(
  (targets.length > 0 ? targets : DEFAULT_TARGETS).flatMap(findTests).map((file) => [path.resolve(file), readFileSync(file, 'utf8')] as const),
);
const startsProcesses = (file: string): boolean => PROCESS_MARKERS.some((marker) => sources.get(file)?.includes(marker));
const reachesDatabase = importGraph(DB_HELPERS, (file) => sources.get(file) ?? readFileSync(file, 'utf8'));
/**
 * A file may declare that its database is only scaffolding for what it tests (a line that starts
 * `// test-engines: one`): it runs once, on either pass. The SDK's pack and browser tests
 * start a server only to have something to call; what they check is the package and the bundle.
 */
const ONE_ENGINE_TAG = /^\/\/ test-engines: one\b/m;
/**
 * A file that runs once, and only on the PostgreSQL pass (a line that starts `// test-engines:
 * postgres`): what it tests needs PostgreSQL throughout (the signer reaches payouts through it),
 * so on PGlite it would only skip. Handed to the PostgreSQL pass whenever there is one; without
 * one it runs on PGlite and says why it skips (and under CI the missing PostgreSQL fails the run).
 */
const POSTGRES_ONLY_TAG = /^\/\/ test-engines: postgres\b/m;
const onOneEngine = (file: string): boolean => ONE_ENGINE_TAG.test(sources.get(file) ?? '') || POSTGRES_ONLY_TAG.test(sources.get(file) ?? '');
/**
 * A file that starts processes for minutes (a line that starts `// test-cost: long`, e.g. the
 * signer's 50 crash rounds) is started first of its pass's process files: started last, it ran
 * alone for two minutes after everything else had finished.
 */
const LONG_TAG = /^\/\/ test-cost: long\b/m;
/**
 * A file that changes what a process holds globally (a line that starts `// test-isolation:
 * process`, e.g. tracing's provider, AsyncLocalStorage context manager and propagator) runs in a
 * process of its own, never in a group: in one, its spans lost their parents on PostgreSQL.
 */
const ALONE_TAG = /^\/\/ test-isolation: process\b/m;
const runsAlone = (file: string): boolean => startsProcesses(file) || ALONE_TAG.test(sources.get(file) ?? '');
/** Files that run once more straight on PostgreSQL, beside the pass through pgbouncer: the header above. */
const DIRECT_TAG = /^\/\/ test-direct: postgres\b/m;
const PGBOUNCER_HINT = "install Debian's `pgbouncer` package (`apt-get install -y pgbouncer`; .ci/run does this)";
const runsLong = (file: string): boolean => LONG_TAG.test(sources.get(file) ?? '');
const databaseFiles = new Set([...sources.keys()].filter((file) => reachesDatabase(file) && !onOneEngine(file)));
const usesDatabase = (file: string): boolean => databaseFiles.has(file);
const byProcesses = (a: string, b: string): number => Number(startsProcesses(a)) - Number(startsProcesses(b));
/**
 * Files without a database run once, on either pass: on PGlite's. Through pgbouncer the
 * PostgreSQL pass is the longer one: its files wait on the server and the pooler, and it holds
 * the signer's two minutes of crash rounds. Handing it every other such file (browsers, the
 * SDK's pack, the rate limiter's stores, 127 s of its lanes' time in one run) made it end
 * 108 s after the PGlite pass, the machine half idle meanwhile. Only the files that need
 * PostgreSQL (POSTGRES_ONLY_TAG) go to it.
 */
const handedToPostgres = new Set([...sources.keys()].filter((file) => POSTGRES_ONLY_TAG.test(sources.get(file) ?? '')));
/** PGlite's pass: every file, those that start processes first. */
const files = [...sources.keys()].sort((a, b) => byProcesses(b, a));
/** PostgreSQL's pass: the files with a database, those that start processes last. */
const dbFiles = [...sources.keys()].filter(usesDatabase).sort(byProcesses);
const workDir = mkdtempSync(path.join(tmpdir(), 'epa-test-run-'));
/**
 * Starts the name of every PostgreSQL database this run's tests make: a test process keeps the
 * ones it can put back for its next test (test/helpers/postgres-reuse.ts) and leaves them when
 * it ends; the run drops them at its end.
 */
const runId = randomBytes(4).toString('hex');
/** This run's PostgreSQL databases and templates, dropped; what could not be is said, never fatal. */
async function dropDatabases(): Promise<void> {
  if (passes.some((pass) => pass.engine === 'postgres')) {
    await dropRunDatabases(runId).catch((error: Error) => console.error(`could not drop this run's test databases: ${error.message}`));
  }
  await Promise.all(templates.map((t) => t.drop().catch((error: Error) => console.error(`could not drop a template database: ${error.message}`))));
}

/** A guess at a file's seconds, to balance groups: a database costs an app start per file. */
const estimatedCost = (file: string): number => (usesDatabase(file) ? 6 : 1) + (sources.get(file)?.length ?? 0) / 3000;

/**
 * What a pass runs, in its order: the files that start processes alone, the others in groups
 * (three times as many groups as files at once, so that no lane ends long after the others;
 * each group costs one more import of the app).
 */
function asRun(engine: Engine, label: string, passFiles: string[]): string[] {
  const grouped = passFiles.filter((file) => !runsAlone(file));
  if (!GROUPED || grouped.length < 2) return passFiles;
  const groups = writeGroups(label, grouped, { count: CONCURRENCY * 3, cost: estimatedCost, workDir, root: REPO_ROOT });
  for (const group of groups) groupMembers.set(group.file, group.members);
  // The long ones first among them, so none is left running alone at the end of its pass.
  const alone = passFiles.filter(runsAlone).sort((a, b) => Number(runsLong(b)) - Number(runsLong(a)));
  const groupFiles = groups.map((group) => group.file);
  return engine === 'pglite' ? [...alone, ...groupFiles] : [...groupFiles, ...alone];
}
const templates: DatabaseTemplate[] = [];
const started = performance.now();

/**
 * src/ compiled for the processes the tests start (test/helpers/compiled-src.ts). Built in place
 * (scripts/build.mjs writes only what changed and removes what no source makes any more), so
 * the output always matches the sources this run tests.
 */
const build = spawnSync(process.execPath, [path.join(REPO_ROOT, 'scripts/build.mjs'), '--outdir', COMPILED_DIR], { cwd: REPO_ROOT, encoding: 'utf8' });
if (build.status !== 0) {
  console.error(`compiling src/ for the test processes failed:\n${build.stderr}${build.stdout}`);
  process.exit(1);
}

/** Problems that are not a test's: an unreachable PostgreSQL under CI, a pass that died. */
const runFailures: string[] = [];
/** Tools missing outside CI, with what they kept from running. */
const missingTools: string[] = [];

const passes: Array<{ engine: Engine; label: string; files: string[]; env?: Record<string, string> }> = [{ engine: 'pglite', label: 'pglite', files }];
/** The pooler of the pgbouncer pass, stopped at the end. */
let pgbouncer: Pgbouncer | undefined;
/** The files only the PostgreSQL pass runs (POSTGRES_ONLY_TAG): they want it even without any other. */
const postgresOnly = [...sources.keys()].filter((file) => POSTGRES_ONLY_TAG.test(sources.get(file) ?? ''));
if (dbFiles.length > 0 || postgresOnly.length > 0) {
  if (await postgresReachable()) {
    passes[0] = { engine: 'pglite', label: 'pglite', files: files.filter((file) => !handedToPostgres.has(file)) };
    const postgresFiles = [...dbFiles, ...handedToPostgres].sort(byProcesses);
    const direct = dbFiles.filter((file) => DIRECT_TAG.test(sources.get(file) ?? '')).sort(byProcesses);
    if (onPath('pgbouncer')) {
      try {
        pgbouncer = await startPgbouncer(adminDatabaseUrl(), workDir);
      } catch (error) {
        runFailures.push(`pgbouncer did not start: ${(error as Error).message}`);
      }
    } else {
      const what = `${MISSING_TOOL} pgbouncer (not on PATH); ${PGBOUNCER_HINT}`;
      if (CI) runFailures.push(`${what}: CI requires it`);
      else missingTools.push(`${what} [the PostgreSQL pass ran directly, not through a pooler]`);
    }
    if (pgbouncer === undefined) {
      passes.push({ engine: 'postgres', label: 'postgres', files: postgresFiles });
    } else {
      passes.push({ engine: 'postgres', label: 'pgbouncer', files: postgresFiles, env: { TEST_PGBOUNCER_URL: pgbouncer.url } });
      if (direct.length > 0) passes.push({ engine: 'postgres', label: 'postgres', files: direct });
    }
  } else {
    const what = `${MISSING_TOOL} PostgreSQL (not reachable at ${adminDatabaseUrl()}); ${POSTGRES_HINT}`;
    if (CI) runFailures.push(`${what}: CI requires it`);
    else missingTools.push(`${what} [the PostgreSQL pass of ${dbFiles.length} files did not run]`);
    console.warn(`\n${'!'.repeat(8)} ${what}: ${CI ? 'CI requires it, the run fails' : 'running on PGlite only'}\n`);
  }
}

const stop = (signal: NodeJS.Signals): void => {
  for (const child of children) child.kill(signal);
  pgbouncer?.stop();
  void dropDatabases().finally(() => {
    rmSync(workDir, { recursive: true, force: true });
    process.exit(130);
  });
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);

// Each pass starts as soon as its template is ready. PostgreSQL's is made first (in about a
// second): PGlite's runs initdb on this process's event loop for several seconds, which would
// starve PostgreSQL's connection timers if both were made at once.
const needsTemplate = (engine: Engine): boolean => passes.some((pass) => pass.engine === engine && pass.files.some((file) => dbFiles.includes(file) || reachesDatabase(file)));
const postgresTemplate = needsTemplate('postgres') ? template('postgres', workDir) : Promise.resolve(undefined);
const pgliteTemplate = postgresTemplate.then(() => (needsTemplate('pglite') ? template('pglite', workDir) : undefined));
const terminal = new Terminal();
const results = await Promise.all(
  passes.map(async ({ engine, label, files: passFiles, env: passEnv }, lane) => {
    const made = await (engine === 'postgres' ? postgresTemplate : pgliteTemplate);
    if (made !== undefined && !templates.includes(made)) templates.push(made);
    const env = { ...made?.env, ...passEnv, TEST_COMPILED_DIR: COMPILED_DIR, [RUN_ID_ENV]: runId };
    return runPass(lane, terminal, engine, label, asRun(engine, label, passFiles), passFiles.length, env, workDir);
  }),
);
pgbouncer?.stop();
await dropDatabases();
rmSync(workDir, { recursive: true, force: true });

// ---- summary ----
console.log(`\n${'='.repeat(24)} summary (${seconds(performance.now() - started)}) ${'='.repeat(24)}`);
for (const { label: engine, summary, exitCode, ms } of results) {
  // A file that reported nothing did not run: counted, never lost without a word.
  const silent = (passes.find((pass) => pass.label === engine)?.files ?? []).filter((file) => !summary.reported.has(file));
  for (const file of silent) runFailures.push(`${engine}: ${relative(file)} reported no test (it did not run)`);
  const skipped = summary.skipped > 0 ? `, ${summary.skipped} skipped` : '';
  const fileCount = passes.find((pass) => pass.label === engine)?.files.length ?? 0;
  const ran = fileCount - silent.length;
  console.log(`${engine}: ${ran} of ${fileCount} test files ran: ${summary.passed} passed, ${summary.failed} failed${skipped} in ${seconds(ms)}`);
  if (exitCode !== 0 && summary.failed === 0) runFailures.push(`the ${engine} pass exited with code ${exitCode} and reported no failed test: see its output above`);
}

if (process.env.TEST_TIMINGS !== undefined) {
  const lines = results.flatMap(({ label: engine, summary }) => summary.files.map((f) => `${engine}\t${(f.ms / 1000).toFixed(1)}\t${relative(f.file)}`));
  writeFileSync(process.env.TEST_TIMINGS, `${lines.join('\n')}\n`);
}

const otherSkips: string[] = [];
const reasons = new Map<string, string[]>();
for (const { label: engine, summary } of results) {
  for (const [reason, count] of summary.skipReasons) reasons.set(reason, [...(reasons.get(reason) ?? []), `${count} on ${engine}`]);
}
for (const [reason, counts] of reasons) {
  const line = `${reason} [${counts.join(', ')}]`;
  if (!reason.startsWith(MISSING_TOOL)) otherSkips.push(line);
  else if (CI) runFailures.push(`skipped under CI: ${line}`);
  else missingTools.push(line);
}
if (otherSkips.length > 0) console.log(`\nskipped by design:\n${otherSkips.map((line) => `  - ${line}`).join('\n')}`);
if (missingTools.length > 0) {
  const bar = '!'.repeat(72);
  console.log(`\n${bar}\nSKIPPED: a tool these tests need is missing here (under CI, CI=1, they fail instead):`);
  for (const line of missingTools) console.log(`  - ${line}`);
  console.log(bar);
}
const failures = results.flatMap(({ label: engine, summary }) => summary.failures.map((failure) => `${engine}: ${failure.replaceAll(`${REPO_ROOT}${path.sep}`, '')}`));
if (failures.length + runFailures.length > 0) {
  console.log('\nfailed:');
  for (const line of [...runFailures, ...failures.slice(0, 40)]) console.log(`  ✖ ${line}`);
  if (failures.length > 40) console.log(`  ... and ${failures.length - 40} more (see the output above)`);
}

// The ten slowest test files of the run, either engine: what to make faster first as the suite
// grows. A group's own line is left out: each of its files has its own time.
const slowest = results
  .flatMap(({ engine, summary }) => summary.files.filter((f) => !GROUP_FILE_PATTERN.test(f.file)).map((f) => ({ engine, ...f })))
  .sort((a, b) => b.ms - a.ms)
  .slice(0, 10);
if (slowest.length > 0) {
  console.log('\nslowest test files:');
  for (const f of slowest) console.log(`  ${seconds(f.ms).padStart(8)}  ${f.engine.padEnd(8)}  ${path.relative(REPO_ROOT, f.file)}`);
}

if (CPU_LOG !== undefined) printCpu(CPU_LOG);

const passed = results.reduce((sum, r) => sum + r.summary.passed, 0);
const failed = results.reduce((sum, r) => sum + r.summary.failed, 0) + runFailures.length;
const skipped = results.reduce((sum, r) => sum + r.summary.skipped, 0);
console.log(`\n${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
process.exit(failed === 0 ? 0 : 1);
