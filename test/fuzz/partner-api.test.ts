/**
 * Fuzzing of the partner API (public and keyed routes, the OpenAPI document) and of paths no
 * route serves. A few cases per route on every `npm test` (FUZZ_RUNS overrides; FUZZ_SEED
 * replays a failure); `npm run fuzz` runs 10,000+. The invariants are in fuzz-harness.ts.
 */
// Built on helpers/test-app.js (through fuzz-harness.ts), so `npm test` runs it on both engines.
import { after, describe, it } from 'node:test';
import { FuzzContext, fuzzRuns, fuzzSeed, routeSpecs } from './fuzz-harness.js';

const RUNS = fuzzRuns(50);
const ctx = await FuzzContext.create();

describe(`fuzz: partner API (${RUNS} cases per route)`, () => {
  after(() => ctx.close());

  for (const spec of routeSpecs(ctx).filter((route) => route.path.startsWith('/api/'))) {
    it(`${spec.method} ${spec.path}`, async () => {
      await ctx.fuzzRoute(spec, RUNS, fuzzSeed());
    });
  }

  it('requests no route serves: random methods, paths, headers and bodies', async () => {
    await ctx.fuzzUnrouted(RUNS, fuzzSeed());
  });
});
