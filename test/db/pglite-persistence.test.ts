import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { srcModule } from '../helpers/compiled-src.js';

/**
 * The embedded store on disk: PGlite only, whatever TEST_ENGINE says (PostgreSQL has no data
 * directory of ours to lock). Every open happens in a child process that exits when done:
 * each start is a real process start, and the runner never hosts a PGlite instance (a process
 * that closed one PGlite store and opened another keeps a wasm interval timer alive and does
 * not exit on its own).
 */
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const database = srcModule('db/database.ts');
const migrate = srcModule('db/migrate.ts');

interface ChildResult {
  code: number | null;
  /** One parsed JSON value per `emit(...)` of the child. */
  emitted: Array<Record<string, unknown>>;
  stderr: string;
}

/**
 * Runs `body` in a new Node process with `openDatabase`, `migrateToLatest`, `sql`, `dataDir`
 * and `emit(value)` in scope. A thrown error prints its message to stderr and exits with 3.
 */
function startChild(dataDir: string, body: string): ChildProcessWithoutNullStreams {
  const script = `
    const { openDatabase } = await import(${JSON.stringify(pathToFileURL(database.file).href)});
    const { migrateToLatest } = await import(${JSON.stringify(pathToFileURL(migrate.file).href)});
    const { sql } = await import('kysely');
    const dataDir = ${JSON.stringify(dataDir)};
    const emit = (value) => process.stdout.write(JSON.stringify(value) + '\\n');
    try {
      ${body}
    } catch (error) {
      console.error(error instanceof Error ? error.message : String(error));
      process.exit(3);
    }
    process.exit(0);
  `;
  // The run's compiled src/ when there is one (no loader), else the sources through tsx.
  return spawn(process.execPath, [...database.loader, '--input-type=module', '-e', script], { cwd: REPO_ROOT });
}

function collect(child: ChildProcessWithoutNullStreams): { result: Promise<ChildResult>; emitted: ChildResult['emitted']; next: () => Promise<Record<string, unknown>> } {
  const emitted: ChildResult['emitted'] = [];
  const waiting: Array<(value: Record<string, unknown>) => void> = [];
  let read = 0;
  let pending = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines.filter((l) => l.trim() !== '')) {
      emitted.push(JSON.parse(line) as Record<string, unknown>);
      const waiter = waiting.shift();
      if (waiter !== undefined) waiter(emitted[read++] as Record<string, unknown>);
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const result = new Promise<ChildResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ code, emitted, stderr });
      // Nothing more will come: wake any waiter so a failed child fails the test, not hangs it.
      for (const waiter of waiting.splice(0)) waiter({ exited: code, stderr });
    });
  });
  const next = (): Promise<Record<string, unknown>> =>
    read < emitted.length
      ? Promise.resolve(emitted[read++] as Record<string, unknown>)
      : new Promise((resolve) => {
          if (child.exitCode !== null) resolve({ exited: child.exitCode, stderr });
          else waiting.push(resolve);
        });
  return { result, emitted, next };
}

const runChild = (dataDir: string, body: string): Promise<ChildResult> => collect(startChild(dataDir, body)).result;

/** Opens the directory, proves it works, closes it, and says whether its lock file is gone. */
const OPEN_AND_CLOSE = `
  const handle = await openDatabase({ engine: 'pglite', dataDir });
  const { readFileSync, existsSync } = await import('node:fs');
  const lock = readFileSync(dataDir + '/pglite.lock', 'utf8').trim();
  const ping = await handle.ping(5000);
  await handle.close();
  emit({ pid: process.pid, lock, ping, lockAfterClose: existsSync(dataDir + '/pglite.lock') });
`;

/** The pid of a process that has already exited. */
function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', () => {
      assert.ok(child.pid !== undefined);
      resolve(child.pid);
    });
  });
}

describe('PGlite on disk: persistence and the data directory lock', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'epa-pglite-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  // One directory for every test (each process closes what it opens): creating a PGlite store
  // costs seconds, reopening one costs far less.
  const dataDir = path.join(root, 'data');
  const lockFile = path.join(dataDir, 'pglite.lock');

  it('a restart keeps the data; migrations do not run twice', async () => {
    const first = await runChild(
      dataDir,
      `
      const handle = await openDatabase({ engine: 'pglite', dataDir });
      const applied = await migrateToLatest(handle.db);
      const partner = await handle.db.insertInto('partners')
        .values({ name: 'Survives Restarts', markup_bps: 42 }).returning(['id']).executeTakeFirstOrThrow();
      await handle.db.updateTable('currencies').set({ min_amount: '0.12345678' }).where('coin', '=', 'BTC').execute();
      await handle.close();
      emit({ applied, id: partner.id });
    `,
    );
    assert.equal(first.code, 0, first.stderr);
    const written = first.emitted[0];
    assert.ok(Array.isArray(written?.applied) && written.applied.length > 0, 'a new store is migrated');
    assert.ok(!existsSync(lockFile), 'closing releases the lock');

    const second = await runChild(
      dataDir,
      `
      const handle = await openDatabase({ engine: 'pglite', dataDir });
      const applied = await migrateToLatest(handle.db);
      const partner = await handle.db.selectFrom('partners').selectAll().where('id', '=', ${JSON.stringify(written.id)}).executeTakeFirst();
      const btc = await handle.db.selectFrom('currencies').select('min_amount').where('coin', '=', 'BTC').executeTakeFirstOrThrow();
      const { rows } = await sql\`select count(*) as n from partners\`.execute(handle.db);
      await handle.close();
      emit({ applied, partner, btc: btc.min_amount, partners: rows[0].n, createdIsDate: partner?.created_at instanceof Date });
    `,
    );
    assert.equal(second.code, 0, second.stderr);
    const read = second.emitted[0];
    assert.deepEqual(read?.applied, [], 'schema already current');
    const partner = read.partner as Record<string, unknown> | undefined;
    assert.ok(partner !== undefined, 'the partner is still there');
    assert.equal(partner.id, written.id);
    assert.equal(partner.name, 'Survives Restarts');
    assert.equal(partner.markup_bps, 42);
    assert.equal(read.createdIsDate, true);
    assert.equal(read.btc, '0.123456780000000000');
    assert.equal(read.partners, 1);
    assert.ok(!existsSync(lockFile));
  });

  it('while one process holds the directory, a second process (and a second open) is refused', async () => {
    const holder = startChild(
      dataDir,
      `
      const handle = await openDatabase({ engine: 'pglite', dataDir });
      let again;
      try {
        await openDatabase({ engine: 'pglite', dataDir });
        again = { opened: true };
      } catch (error) {
        again = { name: error.name, message: error.message };
      }
      emit({ ready: true, pid: process.pid, again });
      // Hold the store until the test closes stdin.
      await new Promise((resolve) => { process.stdin.on('end', resolve); process.stdin.resume(); });
      emit({ ping: await handle.ping(5000) });
      await handle.close();
      emit({ closed: true });
    `,
    );
    const held = collect(holder);
    try {
      const ready = await held.next();
      assert.equal(ready.ready, true, JSON.stringify(ready));
      const holderPid = ready.pid;
      assert.equal(readFileSync(lockFile, 'utf8').trim(), String(holderPid));
      // The holder itself cannot open the directory a second time.
      assert.deepEqual(Object.keys(ready.again as object).sort(), ['message', 'name']);
      const again = ready.again as { name: string; message: string };
      assert.equal(again.name, 'DataDirLockedError');
      assert.match(again.message, /in use by another process/);

      const refused = await runChild(dataDir, OPEN_AND_CLOSE);
      assert.notEqual(refused.code, 0, `the second process must fail: ${JSON.stringify(refused.emitted)}`);
      assert.equal(refused.code, 3);
      assert.match(refused.stderr, /in use by another process/);
      assert.ok(refused.stderr.includes(`pid ${String(holderPid)}`), refused.stderr);
      assert.ok(refused.stderr.includes(dataDir), 'the message names the directory');
      assert.deepEqual(refused.emitted, []);
      // The refused process left the holder's lock alone.
      assert.equal(readFileSync(lockFile, 'utf8').trim(), String(holderPid));
    } finally {
      holder.stdin.end();
    }
    const released = await held.result;
    assert.equal(released.code, 0, released.stderr);
    assert.deepEqual(released.emitted.slice(1), [{ ping: true }, { closed: true }], 'the holder kept working');
    assert.ok(!existsSync(lockFile), 'the lock is released on close');

    const accepted = await runChild(dataDir, OPEN_AND_CLOSE);
    assert.equal(accepted.code, 0, accepted.stderr);
    const opened = accepted.emitted[0];
    assert.equal(opened?.ping, true);
    assert.equal(opened.lock, String(opened.pid), 'the new process holds the lock while open');
    assert.equal(opened.lockAfterClose, false);
  });

  it('a stale lock left by a dead process is taken over', async () => {
    const pid = await deadPid();
    writeFileSync(lockFile, `${pid}\n`);
    const result = await runChild(dataDir, OPEN_AND_CLOSE);
    assert.equal(result.code, 0, result.stderr);
    const opened = result.emitted[0];
    assert.equal(opened?.ping, true);
    assert.equal(opened.lock, String(opened.pid));
    assert.notEqual(opened.lock, String(pid));
    assert.equal(opened.lockAfterClose, false);
    assert.ok(!existsSync(lockFile));
  });

  it('an unreadable (junk) lock file is treated as stale', async () => {
    writeFileSync(lockFile, 'not a pid\n');
    const result = await runChild(dataDir, OPEN_AND_CLOSE);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.emitted[0]?.lock, String(result.emitted[0]?.pid));
    assert.ok(!existsSync(lockFile));
  });
});
