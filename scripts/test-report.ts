/**
 * What scripts/run-tests.ts counts, taken from node:test's own events rather than from the
 * spec reporter's totals: those leave cancelled tests out (a suite whose `before` hook failed
 * reads "N passed, 0 failed" while the run exits 1), and list a file that timed out or crashed
 * as cancelled. Here:
 * - a test passes, fails (for any reason, cancelled by a failed hook or a timeout included),
 *   or is skipped (with its reason; a todo counts as skipped);
 * - a suite or a whole file counts as one more failure when it failed for a reason of its own
 *   (a hook, an error in the describe body, an import error, a crash, a timeout), not when it
 *   failed only because one of its tests did (node's `subtestsFailed`).
 */
import path from 'node:path';
import type { TestEvent } from 'node:test/reporters';
import { GROUP_FILE_PATTERN } from './test-groups.js';

/** One finished test, suite or file, as a JSON line of a pass's report file. */
export type ReportLine =
  | {
      kind: 'test';
      file: string | undefined;
      name: string;
      outcome: 'passed' | 'failed' | 'skipped';
      /** The skip or todo message. */
      reason?: string;
      /** node's failureType: testCodeFailure, hookFailed, cancelledByParent, testTimeoutFailure... */
      failureType?: string;
    }
  /**
   * A test file's wall time, its process start and import included; for a group of files
   * (scripts/test-groups.ts) the group's, and for each of its files the time of its tests.
   */
  | { kind: 'file'; file: string; ms: number };

/** The report line of `event`, if it is one the summary counts. */
export function reportLine(event: TestEvent): ReportLine | undefined {
  if (event.type === 'test:pass' || event.type === 'test:fail') {
    const { data } = event;
    const wholeFile = data.nesting === 0 && data.name === data.file;
    const suite = data.details.type === 'suite' || wholeFile;
    const note = [data.skip, data.todo].find((value) => value !== undefined && value !== false);
    if (note !== undefined) {
      return { kind: 'test', file: data.file, name: data.name, outcome: 'skipped', reason: typeof note === 'string' ? note : 'todo' };
    }
    if (event.type === 'test:pass') return suite ? undefined : { kind: 'test', file: data.file, name: data.name, outcome: 'passed' };
    const failureType = failureTypeOf(event.data.details.error);
    if (suite && failureType === 'subtestsFailed') return undefined;
    return { kind: 'test', file: data.file, name: data.name, outcome: 'failed', failureType };
  }
  if (event.type === 'test:complete' && event.data.nesting === 0 && event.data.file !== undefined) {
    const ms = Math.round(event.data.details.duration_ms);
    if (event.data.name === event.data.file) return { kind: 'file', file: event.data.file, ms };
    // A group's suite for one of its files (test-groups.ts): named by the file's path.
    if (GROUP_FILE_PATTERN.test(event.data.file)) return { kind: 'file', file: path.resolve(event.data.name), ms };
  }
  return undefined;
}

function failureTypeOf(error: Error): string {
  const type = (error as Error & { failureType?: unknown }).failureType;
  return typeof type === 'string' ? type : 'unknown';
}

export interface PassSummary {
  passed: number;
  failed: number;
  skipped: number;
  /** Every skip reason with how many tests or suites it skipped. */
  skipReasons: Map<string, number>;
  /** Failed tests, suites and files: `file › name (failureType)`. */
  failures: string[];
  /** Per file (or group) wall time, slowest first. */
  files: Array<{ file: string; ms: number }>;
  /** Every file that reported a test, a suite or a wall time: a test file not here did not run. */
  reported: Set<string>;
}

export function summarize(lines: readonly ReportLine[]): PassSummary {
  const summary: PassSummary = { passed: 0, failed: 0, skipped: 0, skipReasons: new Map(), failures: [], files: [], reported: new Set() };
  for (const line of lines) {
    if (line.file !== undefined) summary.reported.add(line.file);
    if (line.kind === 'file') {
      summary.files.push({ file: line.file, ms: line.ms });
    } else if (line.outcome === 'passed') {
      summary.passed += 1;
    } else if (line.outcome === 'skipped') {
      summary.skipped += 1;
      const reason = line.reason ?? 'skipped';
      summary.skipReasons.set(reason, (summary.skipReasons.get(reason) ?? 0) + 1);
    } else {
      summary.failed += 1;
      // A group's suite is named by its file's path (test-groups.ts): the group's name says nothing.
      const named = line.file === undefined || line.file === line.name || GROUP_FILE_PATTERN.test(line.file);
      const where = named ? '' : `${line.file} › `;
      summary.failures.push(`${where}${line.name} (${line.failureType ?? 'failed'})`);
    }
  }
  summary.files.sort((a, b) => b.ms - a.ms);
  return summary;
}

/** Parses a report file's JSON lines (a line cut short by a killed pass is ignored). */
export function parseReport(text: string): ReportLine[] {
  const lines: ReportLine[] = [];
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    try {
      lines.push(JSON.parse(raw) as ReportLine);
    } catch {
      // the last line of a pass that was killed mid-write
    }
  }
  return lines;
}
