import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { writeGroups } from '../../scripts/test-groups.js';
import { preloadEnv } from '../../scripts/test-preload.js';
import { parseReport, summarize, type PassSummary } from '../../scripts/test-report.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/**
 * Real files of the suite, quick and without a database: on Node.js 24 a group of these run with
 * node's forceExit lost files (or the rest of one) in about two runs of three, exit code 0.
 */
const MEMBERS = ['test/domain/pricing/quote-math.test.ts', 'test/domain/ledger.test.ts', 'test/domain/payment-uri.test.ts', 'test/domain/pricing/exact-decimal.test.ts'].map((file) => path.join(ROOT, file));

/**
 * How scripts/test-pass.ts runs a group of files (scripts/test-groups.ts) with the preload of
 * scripts/test-process.mjs: every file of the group runs to its end, a file that leaves a handle
 * referenced does not keep its process alive, and the CPU accounting writes the group's line.
 */
describe('a test pass: every file of a group runs to its end, and none lingers (scripts/test-process.mjs)', () => {
  let dir: string;
  let summary: PassSummary;
  let result: { code: number | null; cpu: string; output: string };
  let lingering: string;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'epa-test-pass-'));
    lingering = path.join(dir, 'lingering.test.mjs');
    // A referenced interval nobody clears: without the preload this process would never end.
    writeFileSync(lingering, "import { it } from 'node:test';\nsetInterval(() => undefined, 1000);\nit('leaves an interval running', () => undefined);\n");
    const groups = writeGroups('scratch', [...MEMBERS, lingering], { count: 1, cost: () => 1, workDir: dir, root: ROOT });
    const reportFile = path.join(dir, 'report.jsonl');
    const cpuFile = path.join(dir, 'cpu.jsonl');
    // A pass of its own, not a part of this test's run: node marks its test processes so.
    const { NODE_TEST_CONTEXT: _ownRun, ...env } = process.env;
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/test-pass.ts'), reportFile, '2', ...groups.map((group) => group.file)], {
      cwd: ROOT,
      env: { ...env, ...preloadEnv(process.env.NODE_OPTIONS, cpuFile) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const read = (file: string): string => {
      try {
        return readFileSync(file, 'utf8');
      } catch {
        return '';
      }
    };
    summary = summarize(parseReport(read(reportFile)));
    result = { code, cpu: read(cpuFile), output };
  });
  after(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('every file of the group reports its end, no test fails, and the pass ends with exit code 0', () => {
    const missing = [...MEMBERS, lingering].filter((file) => !summary.files.some((entry) => entry.file === file));
    assert.deepEqual(missing, [], result.output.slice(-3000));
    assert.ok(summary.passed > 0);
    assert.equal(summary.failed, 0, summary.failures.join('\n'));
    assert.equal(result.code, 0);
  });

  it("writes the group's CPU line: its own seconds and its children's", () => {
    const lines = result.cpu.trim().split('\n').map((line) => JSON.parse(line) as { file: string; own: number; children: number });
    assert.equal(lines.length, 1);
    assert.match(lines[0]!.file, /group-scratch-1\.test\.mjs$/);
    assert.ok(lines[0]!.own > 0 && lines[0]!.children >= 0);
  });
});
