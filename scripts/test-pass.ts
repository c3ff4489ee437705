/**
 * One engine's pass of `npm test`, started by scripts/run-tests.ts with TEST_ENGINE (and the
 * engine's template database) in its environment:
 *
 *   node --import tsx scripts/test-pass.ts <report-file> <concurrency> <test-file>...
 *
 * Runs the files with node:test's run(), which is what `node --test` does (each file in a
 * process of its own, `--import tsx` passed on), prints the spec reporter's output, and writes
 * one JSON line per finished test, suite and file to <report-file> (scripts/test-report.ts).
 * A pass is a process of its own so that the engines' passes can run side by side, each with
 * its own environment.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { run } from 'node:test';
import { spec, type TestEvent } from 'node:test/reporters';
import { reportLine } from './test-report.js';

/**
 * A test file (or group of files: test-groups.ts) still running after this long fails (node
 * applies `timeout` per file here). A guard against a hang, not a budget: a group takes a few
 * minutes on a loaded machine.
 */
const FILE_TIMEOUT_MS = 600_000;

const [reportFile, concurrencyText, ...files] = process.argv.slice(2);
if (reportFile === undefined || concurrencyText === undefined || files.length === 0) {
  console.error('usage: node --import tsx scripts/test-pass.ts <report-file> <concurrency> <test-file>...');
  process.exit(2);
}

const report = createWriteStream(reportFile);
const output = new spec();
output.pipe(process.stdout);
let failed = false;
const tests = run({
  files,
  concurrency: Number(concurrencyText),
  timeout: FILE_TIMEOUT_MS,
  // No forceExit: on Node.js 24 it ended test processes while a group's files still ran, with
  // exit code 0 (tests lost without a word). A file whose tests are done is ended by the
  // preload instead, should something keep it alive: scripts/test-process.mjs.
});
for await (const event of tests as AsyncIterable<TestEvent>) {
  if (!output.write(event)) await once(output, 'drain');
  const line = reportLine(event);
  if (line === undefined) continue;
  if (line.kind === 'test' && line.outcome === 'failed') failed = true;
  report.write(`${JSON.stringify(line)}\n`);
}
output.end();
report.end();
await Promise.all([finished(output), finished(report)]);
process.exitCode = failed ? 1 : 0;
