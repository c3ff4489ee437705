/**
 * `npm run fuzz`: the long run. Every route (and the unrouted paths) gets FUZZ_RUNS cases
 * (default 10,000), each route on a fresh app and database, on TEST_ENGINE (pglite by default,
 * or postgres). Prints cases and statuses per route; exits 1 when any invariant failed.
 *
 *   npm run fuzz
 *   FUZZ_RUNS=20000 TEST_ENGINE=postgres npm run fuzz -- --only /admin/
 *   npm run fuzz -- --shard 1/2        (run half of the routes; start 2/2 in another shell)
 *   npm run fuzz -- --only 'GET /api/v1/partner/orders$|POST /api/v1/partner/webhooks$'
 *                                      (several routes, `|` between; a trailing `$` is an exact name)
 */
import { describeStats, FuzzContext, fuzzRuns, fuzzSeed, routeSpecs, type RouteSpec, type Stats } from './fuzz-harness.js';

const RUNS = fuzzRuns(10_000);
const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const at = args.indexOf(name);
  return at < 0 ? undefined : args[at + 1];
};
const only = option('--only');
const [shardIndex, shardCount] = (option('--shard') ?? '1/1').split('/').map(Number) as [number, number];

type Target = { name: string; run: (ctx: FuzzContext) => Promise<Stats> };

async function targets(): Promise<Target[]> {
  // The specs need a context for their ids; this one only lists them.
  const probe = await FuzzContext.create();
  const specs: RouteSpec[] = routeSpecs(probe);
  await probe.close();
  const all: Target[] = specs.map((spec, index) => ({
    name: `${spec.method} ${spec.path}`,
    // Each run gets its own context, so the spec is rebuilt against that context's ids.
    run: (ctx) => ctx.fuzzRoute(routeSpecs(ctx)[index] as RouteSpec, RUNS, fuzzSeed()),
  }));
  all.push({ name: '(unrouted) random methods and paths', run: (ctx) => ctx.fuzzUnrouted(RUNS, fuzzSeed()) });
  return all
    .filter((target) => only === undefined || only.split('|').some((part) => (part.endsWith('$') ? target.name === part.slice(0, -1) : target.name.includes(part))))
    .filter((_target, index) => index % shardCount === shardIndex - 1);
}

const started = Date.now();
const results: Array<{ name: string; stats?: Stats; error?: string; seconds: number }> = [];
const list = await targets();
console.log(`fuzzing ${list.length} routes, ${RUNS} cases each, on ${process.env.TEST_ENGINE ?? 'pglite'}`);
for (const target of list) {
  const t0 = Date.now();
  const ctx = await FuzzContext.create();
  try {
    const stats = await target.run(ctx);
    results.push({ name: target.name, stats, seconds: (Date.now() - t0) / 1000 });
    console.log(`ok    ${target.name}: ${stats.cases} cases in ${((Date.now() - t0) / 1000).toFixed(0)} s [${describeStats(stats)}]`);
  } catch (error) {
    // fast-check puts the failed assertion in `cause`, after a long counterexample.
    const cause = error instanceof Error && error.cause instanceof Error ? `${error.cause.message}\n` : '';
    const message = `${cause}${error instanceof Error ? error.message : String(error)}`;
    results.push({ name: target.name, error: message, seconds: (Date.now() - t0) / 1000 });
    console.log(`FAIL  ${target.name}\n${message.slice(0, 4000)}`);
  } finally {
    // close() also checks that no credential reached the logs.
    await ctx.close().catch((error: unknown) => {
      results.push({ name: `${target.name} (logs)`, error: String(error), seconds: 0 });
      console.log(`FAIL  ${target.name}: ${String(error)}`);
    });
  }
}

const failed = results.filter((result) => result.error !== undefined);
const cases = results.reduce((sum, result) => sum + (result.stats?.cases ?? 0), 0);
console.log(`\n${results.length - failed.length} of ${results.length} routes passed, ${cases} cases in ${((Date.now() - started) / 60_000).toFixed(1)} min`);
for (const result of failed) console.log(`  failed: ${result.name}`);
process.exit(failed.length === 0 ? 0 : 1);
