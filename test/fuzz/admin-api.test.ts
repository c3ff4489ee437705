/**
 * Fuzzing of the operator API (/admin/v1): with and without the admin token, junk ids, bodies
 * and queries. A few cases per route on every `npm test`; `npm run fuzz` runs 10,000+.
 */
// Built on helpers/test-app.js (through fuzz-harness.ts), so `npm test` runs it on both engines.
import { after, describe, it } from 'node:test';
import { FuzzContext, fuzzRuns, fuzzSeed, routeSpecs } from './fuzz-harness.js';

const RUNS = fuzzRuns(50);
const ctx = await FuzzContext.create();

describe(`fuzz: operator API (${RUNS} cases per route)`, () => {
  after(() => ctx.close());

  for (const spec of routeSpecs(ctx).filter((route) => route.path.startsWith('/admin/'))) {
    it(`${spec.method} ${spec.path}`, async () => {
      await ctx.fuzzRoute(spec, RUNS, fuzzSeed());
    });
  }
});
