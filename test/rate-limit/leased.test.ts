// test-engines: one (scripts/run-tests.ts): Redis is what is tested; no database is used.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { LeasedRateLimiter } from '../../src/services/rate-limiter/leased-store.js';
import type { RateLimitDecision } from '../../src/services/rate-limiter/rate-limiter.js';
import { RedisRateLimiter } from '../../src/services/rate-limiter/redis-store.js';
import { REDIS_URL, closedPort, deleteKeys, redisReachable, redisSkip, uniquePrefix, withKeyPrefix } from './redis-support.js';

const reachable = await redisReachable();
const skip = redisSkip(reachable);
const prefix = uniquePrefix();
const url = withKeyPrefix(REDIS_URL, prefix);
const quiet = { warn: () => undefined, info: () => undefined };
const CLIENT = fileURLToPath(new URL('./lease-client.ts', import.meta.url));

/** 1000 a minute in blocks of 50. */
const LIMIT = 1000;
const DIVISOR = 20;
const BLOCK = LIMIT / DIVISOR;

/** A Redis connection of its own with its own leases: what one API process holds. */
function process_(): { store: RedisRateLimiter; leased: LeasedRateLimiter } {
  // A generous wait: these tests count in Redis, and a busy machine must not make them pass unchecked.
  const store = new RedisRateLimiter({ url, timeoutMs: 5000, log: quiet });
  return { store, leased: new LeasedRateLimiter(store, { blockDivisor: DIVISOR }) };
}

async function spend(leased: LeasedRateLimiter, bucket: string, count: number): Promise<RateLimitDecision[]> {
  const decisions: RateLimitDecision[] = [];
  for (let i = 0; i < count; i += 1) decisions.push(await leased.consume(bucket, LIMIT));
  return decisions;
}

const allowed = (decisions: RateLimitDecision[]): number => decisions.filter((decision) => decision.status === 'allowed').length;

/** A lease-client.ts process: `ready` once it is connected; `go()` starts it, `done` is what it printed. */
interface Client {
  ready: Promise<void>;
  go(): void;
  done: Promise<Record<RateLimitDecision['status'], number>>;
}

function client(bucket: string): Client {
  const child = spawn(process.execPath, ['--import', 'tsx', CLIENT, url, bucket, String(LIMIT), String(DIVISOR)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  let signalReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (signalReady = resolve));
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    if (out.startsWith('ready\n')) signalReady();
  });
  const done = new Promise<Record<RateLimitDecision['status'], number>>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      signalReady();
      if (code === 0) resolve(JSON.parse(out.slice('ready\n'.length)) as Record<RateLimitDecision['status'], number>);
      else reject(new Error(`lease client exited ${code}: ${out}`));
    });
  });
  return { ready, go: () => child.stdin.end('go\n'), done };
}

describe('request budgets leased from Redis in blocks', { skip }, () => {
  let a: ReturnType<typeof process_>;
  let b: ReturnType<typeof process_>;
  let redis: Redis;
  before(async () => {
    a = process_();
    b = process_();
    redis = new Redis(REDIS_URL);
    await Promise.all([a.store.connected(5000), b.store.connected(5000)]);
  });
  after(async () => {
    for (const p of [a, b]) {
      await p.leased.close();
      await p.store.close();
    }
    redis.disconnect();
    await deleteKeys(prefix);
  });

  it('has a reachable Redis', () => {
    assert.ok(reachable, `Redis is not reachable at ${REDIS_URL}; CI requires it`);
  });

  it('two processes spending one bucket together admit exactly the limit, never more', async () => {
    const bucket = 'partner:two-processes';
    const clients = [client(bucket), client(bucket)];
    await Promise.all(clients.map((c) => c.ready));
    for (const c of clients) c.go();
    const [first, second] = await Promise.all(clients.map((c) => c.done));
    assert.ok(first !== undefined && second !== undefined);
    assert.equal(first.unchecked + second.unchecked, 0);
    // Each stopped at its first refusal, when neither held anything unspent: Redis granted the
    // whole budget, each request at most once, and nothing past it.
    assert.equal(first.allowed + second.allowed, LIMIT, JSON.stringify({ first, second }));
    assert.ok(first.allowed > 0 && second.allowed > 0, JSON.stringify({ first, second }));
    assert.ok(Number(await redis.get(`${prefix}epa:rl:${bucket}`)) >= LIMIT);
  });

  it('a block one process holds unspent is refused to the other: refused within one block per process of the limit', async () => {
    const bucket = 'partner:held-block';
    const first = await a.leased.consume(bucket, LIMIT);
    assert.equal(first.status, 'allowed');
    // a holds BLOCK - 1 it has not spent; b is refused once everything else is spent.
    const bDecisions = await spend(b.leased, bucket, LIMIT);
    const bAllowed = allowed(bDecisions);
    assert.equal(bAllowed, LIMIT - BLOCK);
    assert.equal(bDecisions[bAllowed]?.status, 'limited');
    assert.ok(bDecisions.slice(bAllowed).every((decision) => decision.status === 'limited'));
    // a still spends its block, and then no more: the limit, exactly.
    const aDecisions = await spend(a.leased, bucket, BLOCK);
    assert.equal(allowed(aDecisions), BLOCK - 1);
    assert.equal(aDecisions[BLOCK - 1]?.status, 'limited');
    assert.equal(1 + allowed(aDecisions) + bAllowed, LIMIT);
  });

  it('asks Redis once per block, not once per request', async () => {
    const bucket = 'key:round-trips';
    const source = new Redis(REDIS_URL);
    const monitor = await source.monitor();
    const seen: string[][] = [];
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args.some((arg) => arg.includes(`${prefix}epa:rl:${bucket}`) || arg === `${prefix}done`)) seen.push(args);
    });
    try {
      const decisions = await spend(a.leased, bucket, 10 * BLOCK);
      assert.equal(allowed(decisions), 10 * BLOCK);
      // Concurrent requests wait on the lease being taken rather than each asking.
      const burst = await Promise.all(Array.from({ length: BLOCK }, async () => a.leased.consume(bucket, LIMIT)));
      assert.equal(allowed(burst), BLOCK);
      await redis.get(`${prefix}done`);
      while (!seen.some((args) => args.includes(`${prefix}done`))) await new Promise((resolve) => setImmediate(resolve));
      const leases = seen.filter((args) => /^eval/i.test(args[0] ?? ''));
      assert.equal(leases.length, 11, seen.map((args) => args.join(' ')).join('\n'));
    } finally {
      monitor.disconnect();
      source.disconnect();
    }
  });

  it('reports what Redis has left and when its window ends', async () => {
    const bucket = 'key:fields';
    const first = await a.leased.consume(bucket, LIMIT);
    assert.equal(first.status, 'allowed');
    if (first.status !== 'allowed') return;
    // Redis granted a block: LIMIT - BLOCK left there, BLOCK - 1 still here.
    assert.equal(first.remaining, LIMIT - 1);
    assert.ok(first.resetMs > 0 && first.resetMs <= 60_000, String(first.resetMs));
    const second = await a.leased.consume(bucket, LIMIT);
    assert.equal(second.status === 'allowed' && second.remaining, LIMIT - 2);
    const ttl = await redis.pttl(`${prefix}epa:rl:${bucket}`);
    assert.ok(ttl > 0 && ttl <= 60_000, `ttl ${ttl}`);
    assert.equal(await redis.get(`${prefix}epa:rl:${bucket}`), String(BLOCK));
  });

  it('a budget under two blocks of one is counted request by request, as before', async () => {
    const bucket = 'ip:exact';
    for (let i = 1; i <= 5; i += 1) {
      const decision = await a.leased.consume(bucket, 30);
      assert.equal(decision.status === 'allowed' && decision.remaining, 30 - i);
    }
    assert.equal(await redis.get(`${prefix}epa:rl:${bucket}`), '5');
  });

  it('fails open: a lease Redis cannot give leaves the request and those waiting on it unchecked', async () => {
    const store = new RedisRateLimiter({ url: `redis://127.0.0.1:${await closedPort()}`, timeoutMs: 100, log: quiet });
    const leased = new LeasedRateLimiter(store, { blockDivisor: DIVISOR });
    try {
      const decisions = await Promise.all(Array.from({ length: 10 }, async () => leased.consume('partner:down', LIMIT)));
      assert.deepEqual(
        decisions.map((decision) => decision.status),
        Array.from({ length: 10 }, () => 'unchecked'),
      );
    } finally {
      await leased.close();
      await store.close();
    }
  });
});
