/**
 * One process's share of a leased budget, for leased.test.ts: spends `bucket` (limit, block
 * divisor from argv) through its own Redis connection, 20 requests at a time, until Redis refuses
 * it, and prints what it was told as one JSON line. It says `ready` once connected and starts
 * when a line comes on stdin, so that two of them spend at the same time.
 */
import { LeasedRateLimiter } from '../../src/services/rate-limiter/leased-store.js';
import { RedisRateLimiter } from '../../src/services/rate-limiter/redis-store.js';

const [url, bucket, limitText, divisorText] = process.argv.slice(2);
if (url === undefined || bucket === undefined || limitText === undefined || divisorText === undefined) throw new Error('usage: url bucket limit divisor');
const limit = Number(limitText);
const store = new RedisRateLimiter({ url, timeoutMs: 5000, log: { warn: () => undefined, info: () => undefined } });
const leased = new LeasedRateLimiter(store, { blockDivisor: Number(divisorText) });
await store.connected(5000);
process.stdout.write('ready\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
process.stdin.destroy();
const counts = { allowed: 0, limited: 0, unchecked: 0 };
while (counts.limited === 0 && counts.unchecked === 0) {
  const decisions = await Promise.all(Array.from({ length: 20 }, async () => leased.consume(bucket, limit)));
  for (const decision of decisions) counts[decision.status] += 1;
}
process.stdout.write(`${JSON.stringify(counts)}\n`);
await leased.close();
await store.close();
