/**
 * Preloaded (NODE_OPTIONS --import, set by scripts/run-tests.ts) into every process of a test
 * pass; it acts only in a test process (a test file, or a group of them: the script node runs
 * ends in `.test.ts` or `.test.mjs`), never in the servers, workers and CLIs the tests start.
 *
 * - **No lingering**: once the file's tests and hooks are done, the process exits within a few
 *   seconds even if a handle is still referenced (PGlite 0.4 can leave a re-arming WASM timer
 *   behind after close). This is what node's `forceExit` was for, but on Node.js 24 a test
 *   process run with `--test-force-exit` can end while a group's files are still running (whole
 *   files and the rest of a file lost, with exit code 0: reproduced on 24.21.0, never on 20), so
 *   the runner no longer passes it.
 * - **CPU accounting** (`TEST_CPU=<file>`): when the process exits it appends one line to <file>:
 *   its own CPU and that of every process it started and reaped (servers, the CLI, signers killed
 *   with SIGKILL, chain nodes, Chromium), in seconds, read from /proc/self/stat (utime, stime,
 *   cutime, cstime; Node's resourceUsage() counts only the process itself). Linux only.
 */
import { appendFileSync, readFileSync } from 'node:fs';

/** How long a test process may linger after its last test and hook before it is ended. */
const LINGER_MS = 5000;

const script = process.argv[1] ?? '';
if (/\.test\.(ts|mjs)$/.test(script)) {
  // Imported here, not at the top: every server, worker and CLI a test starts preloads this
  // file too, and none of them needs the test runner.
  const { after } = await import('node:test');
  // The root's `after` runs when every test and hook of the file has finished. Unreferenced:
  // a process with nothing left exits by itself at once, as before.
  after(() => {
    setTimeout(() => process.exit(), LINGER_MS).unref();
  });

  const log = process.env.TEST_CPU;
  if (log !== undefined && process.platform === 'linux') {
    process.on('exit', () => {
      try {
        const stat = readFileSync('/proc/self/stat', 'utf8');
        // The fields after the command name (which may hold spaces) start at field 3.
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const seconds = (field) => Number(fields[field - 3]) / 100;
        const own = seconds(14) + seconds(15);
        const children = seconds(16) + seconds(17);
        appendFileSync(log, `${JSON.stringify({ file: script, engine: process.env.TEST_ENGINE ?? 'pglite', pooled: process.env.TEST_PGBOUNCER_URL !== undefined, own, children })}\n`);
      } catch {
        // an accounting aid: a process that cannot read its own stat is no test's failure
      }
    });
  }
}
