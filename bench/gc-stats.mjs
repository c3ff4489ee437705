/**
 * Preloaded into a server by bench/heap-probe.ts (`NODE_OPTIONS=--import <this file>`): counts
 * V8's garbage collections by kind and their pause time on the main thread, and appends one JSON
 * line to GC_STATS_FILE when the process exits (the server exits on SIGTERM after closing).
 */
import { appendFileSync } from 'node:fs';
import { constants, PerformanceObserver } from 'node:perf_hooks';

const file = process.env.GC_STATS_FILE;
const kinds = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};
const stats = {};
if (file !== undefined) {
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = kinds[entry.detail?.kind] ?? 'other';
      const one = (stats[kind] ??= { count: 0, ms: 0 });
      one.count++;
      one.ms += entry.duration;
    }
  }).observe({ entryTypes: ['gc'] });
  process.on('exit', () => {
    const pauseMs = Object.values(stats).reduce((sum, one) => sum + one.ms, 0);
    appendFileSync(file, `${JSON.stringify({ pid: process.pid, pauseMs: Math.round(pauseMs), stats })}\n`);
  });
}
