// test-engines: one (scripts/run-tests.ts): the limiter's store (Redis) is what is tested; the database only holds the keys it counts for.
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import type { LimiterLog } from '../../src/services/rate-limiter/failure-log.js';
import { RedisRateLimiter } from '../../src/services/rate-limiter/redis-store.js';
import { TableQueryCounter } from '../helpers/query-counter.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import {
  REDIS_URL,
  redisProxy,
  closedPort,
  deleteKeys,
  limiterFailures,
  listKeys,
  redisReachable,
  redisSkip,
  silentServer,
  sleep,
  timed,
  total,
  uniquePrefix,
  withKeyPrefix,
} from './redis-support.js';

const CURRENCIES = '/api/v1/currencies';
const reachable = await redisReachable();
const skip = redisSkip(reachable);
const prefix = uniquePrefix();
const sharedUrl = withKeyPrefix(REDIS_URL, prefix);

/** Generous: the limiter's own budget is 100 ms; PGlite answers in a few ms. */
const FAST_MS = 500;

function get(t: TestApp, remoteAddress: string, url = CURRENCIES) {
  return t.app.inject({ method: 'GET', url, remoteAddress });
}

/** Requests until the limiter counts again (RateLimit-Remaining present), within `withinMs`. */
async function untilCounted(t: TestApp, ip: string, withinMs: number): Promise<number> {
  const deadline = performance.now() + withinMs;
  while (performance.now() < deadline) {
    const res = await get(t, ip);
    assert.equal(res.statusCode, 200);
    const remaining = res.headers['ratelimit-remaining'];
    if (remaining !== undefined) return Number(remaining);
    await sleep(100);
  }
  assert.fail(`the limiter did not recover within ${withinMs} ms`);
}

describe('rate limit (Redis store)', { skip }, () => {
  after(() => deleteKeys(prefix));

  // Under CI the suite runs even without Redis, and this fails it (so do the tests below).
  it('has a reachable Redis', () => {
    assert.ok(reachable, `Redis is not reachable at ${REDIS_URL}; CI requires it`);
  });

  describe('with Redis up', () => {
    let a: TestApp;
    let b: TestApp;
    const bKeyReads = new TableQueryCounter('api_keys');
    before(async () => {
      // These tests count in Redis: a request that waited past the default 100 ms (a busy
      // machine running the suite) would pass unchecked, without the counts they assert. The
      // fail-open path has tests of its own below, with the default wait.
      const env = { REDIS_URL: sharedUrl, RATE_LIMIT_REDIS_TIMEOUT_MS: '5000' };
      a = await buildTestApp({ env });
      b = await buildTestApp({ env, wrapDatabase: bKeyReads.wrap });
    });
    after(async () => {
      await a.close();
      await b.close();
    });

    it('allows 60 public requests, then 429 with Retry-After; counters live in Redis under the prefix', async () => {
      const ip = '198.51.100.1';
      for (let i = 1; i <= 60; i += 1) {
        const res = await get(a, ip);
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.headers['ratelimit-remaining'], String(60 - i));
      }
      const limited = await get(a, ip);
      assert.equal(limited.statusCode, 429);
      assert.equal(limited.json<{ code: string }>().code, 'rate_limited');
      const retryAfter = Number(limited.headers['retry-after']);
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      assert.equal(limited.headers['ratelimit-reset'], String(retryAfter));
      assert.equal(limited.headers.ratelimit, `"ip";r=0;t=${retryAfter}`);
      assert.equal(limited.headers['ratelimit-policy'], '"ip";q=60;w=60');

      const client = new Redis(REDIS_URL);
      try {
        const keys = await listKeys(client, prefix);
        assert.ok(keys.includes(`${prefix}epa:rl:ip:${ip}`), keys.join(', '));
        const ttl = await client.pttl(`${prefix}epa:rl:ip:${ip}`);
        assert.ok(ttl > 0 && ttl <= 60_000, `ttl ${ttl}`);
      } finally {
        client.disconnect();
      }
    });

    it('shares one budget between two app instances', async () => {
      const ip = '198.51.100.2';
      for (let i = 0; i < 30; i += 1) {
        assert.equal((await get(a, ip)).statusCode, 200);
        assert.equal((await get(b, ip)).statusCode, 200);
      }
      assert.equal((await get(a, ip)).statusCode, 429);
      assert.equal((await get(b, ip)).statusCode, 429);
      assert.deepEqual(total(await limiterFailures(a)), 0);
    });

    it('counts a key against its own budget across instances', async () => {
      const partner = await a.createPartner({ rate_limit_per_minute: 5 });
      // b has its own database: the key exists in a only, so b sees an invalid key (IP bucket).
      const headers = { authorization: `Bearer ${partner.apiKey}` };
      for (let i = 1; i <= 5; i += 1) {
        const res = await a.app.inject({ method: 'GET', url: '/api/v1/partner/account', headers });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.headers['ratelimit-remaining'], String(5 - i));
      }
      const limited = await a.app.inject({ method: 'GET', url: '/api/v1/partner/account', headers });
      assert.equal(limited.statusCode, 429);
      assert.equal(limited.headers['ratelimit-policy'], '"key";q=5;w=60, "partner";q=10;w=60');
    });

    it("counts all of a partner's keys against one partner budget in Redis", async () => {
      const partner = await a.createPartner({ rate_limit_per_minute: 3 });
      const second = await a.admin('POST', `/admin/v1/partners/${partner.id}/keys`);
      const third = await a.admin('POST', `/admin/v1/partners/${partner.id}/keys`);
      const keys = [partner.apiKey, second.json<{ api_key: string }>().api_key, third.json<{ api_key: string }>().api_key];
      const account = (key: string) => a.app.inject({ method: 'GET', url: '/api/v1/partner/account', headers: { 'x-api-key': key } });
      for (let i = 0; i < 3; i += 1) assert.equal((await account(keys[0]!)).statusCode, 200);
      for (let i = 0; i < 3; i += 1) assert.equal((await account(keys[1]!)).statusCode, 200);
      const limited = await account(keys[2]!);
      assert.equal(limited.statusCode, 429, limited.body);
      assert.equal(limited.headers['ratelimit-policy'], '"key";q=3;w=60, "partner";q=6;w=60');
      assert.match(String(limited.headers.ratelimit), /^"key";r=2;t=\d+, "partner";r=0;t=\d+$/);
      const client = new Redis(REDIS_URL);
      try {
        assert.equal(await client.get(`${prefix}epa:rl:partner:${partner.id}`), '7');
      } finally {
        client.disconnect();
      }
    });

    it('shares the failed admin-token budget between instances; successes are given back', async () => {
      const ip = '198.51.100.6';
      const admin = (t: TestApp, token: string) =>
        t.app.inject({ method: 'GET', url: '/admin/v1/partners', remoteAddress: ip, headers: { authorization: `Bearer ${token}` } });
      for (let i = 0; i < 5; i += 1) assert.equal((await admin(a, 'x'.repeat(40))).statusCode, 401);
      // Successes on either instance do not count (each attempt is given back in Redis).
      for (let i = 0; i < 20; i += 1) assert.equal((await admin(i % 2 === 0 ? a : b, i % 2 === 0 ? a.adminToken : b.adminToken)).statusCode, 200);
      for (let i = 0; i < 5; i += 1) assert.equal((await admin(b, 'y'.repeat(40))).statusCode, 401);
      const limited = await admin(a, a.adminToken);
      assert.equal(limited.statusCode, 429, limited.body);
      assert.ok(Number(limited.headers['retry-after']) >= 1);
    });

    it('issue 36.7: a valid key that instance b has never read passes from an address whose budget a spent; a failed one is 429', async () => {
      const ip = '198.51.100.3';
      for (let i = 0; i < 60; i += 1) assert.equal((await get(a, ip)).statusCode, 200);
      assert.equal((await get(b, ip)).statusCode, 429);
      // Created through b's operator API (each instance has its own database), never used yet.
      const partner = await b.createPartner();
      const before = bKeyReads.count;
      const res = await b.app.inject({ method: 'GET', url: '/api/v1/partner/account', remoteAddress: ip, headers: { authorization: `Bearer ${partner.apiKey}` } });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['ratelimit-policy'], '"key";q=600;w=60, "partner";q=1200;w=60');
      assert.equal(bKeyReads.count - before, 1);
      // An unknown id from that address is read too (it could have been valid), then refused on
      // the address's budget.
      const unknown = `pk_${'0'.repeat(20)}.${'A'.repeat(43)}`;
      const refused = await b.app.inject({ method: 'GET', url: '/api/v1/partner/account', remoteAddress: ip, headers: { authorization: `Bearer ${unknown}` } });
      assert.equal(refused.statusCode, 429, refused.body);
      assert.equal(refused.headers['ratelimit-policy'], '"ip";q=60;w=60');
      assert.equal(bKeyReads.count - before, 2);
    });

    it('an address that failed 60 key checks, on either instance, gets no more key reads', async () => {
      const ip = '198.51.100.6';
      for (let i = 0; i < 60; i += 1) {
        const t = i % 2 === 0 ? a : b;
        const key = `pk_${String(i).padStart(20, '0')}.${'A'.repeat(43)}`;
        const res = await t.app.inject({ method: 'GET', url: '/api/v1/partner/account', remoteAddress: ip, headers: { authorization: `Bearer ${key}` } });
        assert.equal(res.statusCode, 401, res.body);
      }
      const before = bKeyReads.count;
      const res = await b.app.inject({ method: 'GET', url: '/api/v1/partner/account', remoteAddress: ip, headers: { authorization: `Bearer pk_${'2'.repeat(20)}.${'A'.repeat(43)}` } });
      assert.equal(res.statusCode, 429, res.body);
      assert.equal(bKeyReads.count - before, 0);
    });
  });

  describe('with Redis unreachable or hung: fail open, quickly', () => {
    for (const scenario of ['nothing listening', 'a server that never answers'] as const) {
      it(`answers every request with ${scenario}, and counts the failures`, async () => {
        const silent = scenario === 'a server that never answers' ? await silentServer() : undefined;
        const port = silent?.port ?? (await closedPort());
        const t = await buildTestApp({ env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
        try {
          for (let i = 0; i < 70; i += 1) {
            const { res, ms } = await timed(t, { method: 'GET', url: CURRENCIES, remoteAddress: '198.51.100.3' });
            assert.equal(res.statusCode, 200, res.body);
            assert.ok(ms < FAST_MS, `request ${i} took ${ms.toFixed(0)} ms`);
            assert.equal(res.headers['ratelimit-limit'], '60');
            assert.equal(res.headers['ratelimit-policy'], '"ip";q=60;w=60');
            assert.equal(res.headers['ratelimit-remaining'], undefined);
          }
          assert.equal(total(await limiterFailures(t)), 70);
          const warnings = t.logs.filter((line) => line.includes('rate limiter store unavailable'));
          assert.ok(warnings.length >= 1 && warnings.length <= 2, `${warnings.length} warnings`);
        } finally {
          await t.close();
          await silent?.close();
        }
      });
    }
  });

  describe('Redis stalling and stopping mid-run', () => {
    const proxy = redisProxy(REDIS_URL);
    let t: TestApp;
    /** Requests let through unchecked before the test: the first through a new connection can be. */
    let failuresBefore = 0;
    before(async () => {
      await proxy.up();
      t = await buildTestApp({ env: { REDIS_URL: withKeyPrefix(`redis://127.0.0.1:${proxy.port}`, prefix) } });
      // On a loaded machine the app's first request through the proxy can outwait the limiter's
      // 100 ms (and the limiter then skips Redis for a second): the test starts once the app's
      // connection counts, from another address, and counts failures from there.
      await untilCounted(t, '198.51.100.250', 10_000);
      failuresBefore = total(await limiterFailures(t));
    });
    after(async () => {
      await t.close();
      await proxy.down();
    });

    it('fails open while Redis hangs or is gone, and counts again by itself when it is back', async () => {
      const ip = '198.51.100.4';
      // Five counted requests open this address's window in Redis. On a loaded machine one of them
      // can outwait the limiter's 100 ms and pass unchecked (the limiter then skips Redis for a
      // second): untilCounted waits that out, so each of the five is counted.
      let beforeHang = 60;
      for (let i = 0; i < 5; i += 1) {
        const remaining = await untilCounted(t, ip, 5000);
        assert.ok(remaining < beforeHang, `remaining ${remaining} after ${beforeHang}`);
        beforeHang = remaining;
      }

      // Redis hangs (connection open, no answers).
      proxy.stall();
      for (let i = 0; i < 20; i += 1) {
        const { res, ms } = await timed(t, { method: 'GET', url: CURRENCIES, remoteAddress: ip });
        assert.equal(res.statusCode, 200);
        assert.ok(ms < FAST_MS, `stalled request ${i} took ${ms.toFixed(0)} ms`);
      }
      const stalled = await limiterFailures(t);
      assert.ok((stalled.timeout ?? 0) >= 1, JSON.stringify(stalled));
      assert.equal(total(stalled) - failuresBefore, 20);

      proxy.resume();
      // The window in Redis survived the hang: counting continues below where it was.
      const afterHang = await untilCounted(t, ip, 5000);
      assert.ok(afterHang < beforeHang, `remaining ${afterHang} after ${beforeHang}`);

      // Redis stops (connections cut, nothing listening).
      await proxy.down();
      for (let i = 0; i < 20; i += 1) {
        const { res, ms } = await timed(t, { method: 'GET', url: CURRENCIES, remoteAddress: ip });
        assert.equal(res.statusCode, 200);
        assert.ok(ms < FAST_MS, `request ${i} with Redis stopped took ${ms.toFixed(0)} ms`);
      }
      assert.ok(total(await limiterFailures(t)) - failuresBefore >= 40);

      await proxy.up();
      const afterStop = await untilCounted(t, ip, 6000);
      assert.ok(afterStop < afterHang, `remaining ${afterStop}`);
      assert.ok(t.logs.some((line) => line.includes('rate limiter store reachable again')));
    });

    it('drops a connection that keeps timing out and reconnects by itself', async () => {
      const lines: string[] = [];
      const log: LimiterLog = {
        warn: (_fields, message) => lines.push(message),
        info: (_fields, message) => lines.push(message),
      };
      const limiter = new RedisRateLimiter({
        url: withKeyPrefix(`redis://127.0.0.1:${proxy.port}`, prefix),
        log,
        timeoutMs: 50,
        retryAfterFailureMs: 0,
        reconnectAfterTimeouts: 3,
      });
      try {
        await limiter.connected(2000);
        assert.equal((await limiter.consume('ip:reconnect', 10)).status, 'allowed');
        proxy.stall();
        const reasons: string[] = [];
        for (let i = 0; i < 5; i += 1) {
          const started = performance.now();
          const decision = await limiter.consume('ip:reconnect', 10);
          assert.ok(performance.now() - started < 200);
          assert.equal(decision.status, 'unchecked');
          if (decision.status === 'unchecked') reasons.push(decision.reason);
        }
        // Three timeouts, then the new connection is not ready yet: rejected at once.
        assert.deepEqual(reasons.slice(0, 3), ['timeout', 'timeout', 'timeout']);
        assert.ok(reasons.slice(3).every((reason) => reason === 'not_connected'), reasons.join());
        proxy.resume();
        const deadline = performance.now() + 5000;
        let decision = await limiter.consume('ip:reconnect', 10);
        while (decision.status === 'unchecked' && performance.now() < deadline) {
          await sleep(50);
          decision = await limiter.consume('ip:reconnect', 10);
        }
        assert.notEqual(decision.status, 'unchecked');
        assert.equal(lines.filter((line) => line.includes('unavailable')).length, 1);
      } finally {
        proxy.resume();
        await limiter.close();
      }
    });
  });
});
