// test-engines: postgres (scripts/run-tests.ts): several processes share one PostgreSQL; on PGlite the whole file skips.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { formatReport, runConcurrencyCheck } from '../../scripts/check-concurrency.js';
import { killAll } from '../helpers/process/managed-process.js';
import { testEngine } from '../helpers/test-database.js';
import { redisReachable, redisSkip } from '../rate-limit/redis-support.js';

/**
 * The short form of `npm run check:concurrency`: 2 API processes and 2 workers on one
 * PostgreSQL database and one Redis, 200 orders created and driven to completion through both
 * APIs, then the invariants checked in SQL (see scripts/check-concurrency.ts).
 */
const ORDERS = 200;

const engine = testEngine();
const skip =
  engine !== 'postgres'
    ? 'several processes cannot share one PGlite directory (that is what the data-dir lock prevents): runs on the PostgreSQL pass'
    : redisSkip(await redisReachable());

describe('concurrency across processes (2 APIs + 2 workers)', { skip, timeout: 180_000 }, () => {
  after(() => killAll());

  it(`creates ${ORDERS} orders through both APIs and completes each exactly once`, async () => {
    const lines: string[] = [];
    const report = await runConcurrencyCheck({
      orders: ORDERS,
      concurrency: 16,
      settleTimeoutMs: 90_000,
      log: (line) => lines.push(line),
    });
    const summary = formatReport(report);
    console.log(summary.split('\n').map((line) => `# ${line}`).join('\n'));
    assert.deepEqual(report.violations, [], `${summary}\n${lines.join('\n')}`);
    assert.equal(report.created, ORDERS);
    assert.deepEqual(report.statuses, { completed: ORDERS });
  });
});
