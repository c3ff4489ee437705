import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { ManualClock, buildTestApp, type TestApp } from '../helpers/test-app.js';
import { addresses, unknownKey, wrongSecret } from './auth-helpers.js';

const ACCOUNT = '/api/v1/partner/account';
/** Blocks of interleaved pairs; each block gives one ratio of medians, the test takes their median. */
const BLOCKS = 15;
const PAIRS_PER_BLOCK = 40;
/** How far apart the two medians may be: before the fix an unknown id took about 2.5 times as long. */
const MAX_RATIO = 1.3;

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/**
 * Issue 12 #4: an unknown key id must not tell itself apart from a known one by its answer's
 * time. Measured in-process (app.inject, the whole HTTP stack without a socket) with the two
 * kinds interleaved, the order swapped every pair, so load from anything else on the machine
 * falls on both alike; many short blocks, each a ratio of medians, and the median of those, so
 * a burst of load in one block moves one ratio, not the verdict.
 */
describe('answer time: unknown key id against a wrong secret for a known id', () => {
  const clock = new ManualClock();
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ clock, env: { WORKER: 'off' } });
  });
  after(() => t.close());

  it(`medians within a ratio of ${MAX_RATIO} (${BLOCKS} blocks of ${PAIRS_PER_BLOCK} pairs)`, async (context) => {
    const partner = await t.createPartner();
    const unknown = unknownKey();
    const wrong = wrongSecret(partner.apiKey);
    // Every request from its own address: failed keys count against the address's budget.
    const nextAddress = addresses('10.12');
    const timed = async (key: string): Promise<number> => {
      const started = performance.now();
      const res = await t.app.inject({ method: 'GET', url: ACCOUNT, remoteAddress: nextAddress(), headers: { authorization: `Bearer ${key}` } });
      const elapsed = performance.now() - started;
      assert.equal(res.statusCode, 401, res.body);
      return elapsed;
    };
    // Warm-up: the first sight of each id reads the database (both alike); JIT settles.
    for (let i = 0; i < 50; i += 1) {
      await timed(unknown);
      await timed(wrong);
    }
    const ratios: number[] = [];
    const medians = { unknown: [] as number[], wrong: [] as number[] };
    for (let block = 0; block < BLOCKS; block += 1) {
      const times = { unknown: [] as number[], wrong: [] as number[] };
      for (let pair = 0; pair < PAIRS_PER_BLOCK; pair += 1) {
        if (pair % 2 === 0) {
          times.unknown.push(await timed(unknown));
          times.wrong.push(await timed(wrong));
        } else {
          times.wrong.push(await timed(wrong));
          times.unknown.push(await timed(unknown));
        }
      }
      medians.unknown.push(median(times.unknown));
      medians.wrong.push(median(times.wrong));
      ratios.push(median(times.unknown) / median(times.wrong));
    }
    const ratio = median(ratios);
    const figures = `unknown id ${(median(medians.unknown) * 1000).toFixed(0)} µs, wrong secret ${(median(medians.wrong) * 1000).toFixed(0)} µs, ratio ${ratio.toFixed(3)}`;
    context.diagnostic(figures);
    assert.ok(ratio < MAX_RATIO && ratio > 1 / MAX_RATIO, figures);
  });
});
