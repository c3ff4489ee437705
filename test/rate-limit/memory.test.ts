// test-engines: one (scripts/run-tests.ts): the limiter's in-process store is what is tested; the database only holds the keys it counts for.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { PUBLIC_RATE_LIMIT_PER_MINUTE } from '../../src/plugins/rate-limit.js';
import { MemoryRateLimiter } from '../../src/services/rate-limiter/memory-store.js';
import { ManualClock, buildTestApp, type TestApp } from '../helpers/test-app.js';
import { assertErrorItems } from '../helpers/error-items.js';

const CURRENCIES = '/api/v1/currencies';
const ACCOUNT = '/api/v1/partner/account';

function get(t: TestApp, url: string, remoteAddress: string, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'GET', url, remoteAddress, headers });
}

/** Another budget the request also counted against (a key's partner), as the fields list it. */
interface AlsoCounted {
  policy: string;
  limit: number;
  remaining: number;
}

function assertLimited(res: LightMyRequestResponse, limit: number, policy: string, also: AlsoCounted[] = []): void {
  assert.equal(res.statusCode, 429, res.body);
  assert.deepEqual(Object.keys(res.json<object>()).sort(), ['code', 'detail', 'errors']);
  assertErrorItems(res.json());
  assert.equal(res.json<{ code: string }>().code, 'rate_limited');
  assert.match(res.json<{ detail: string }>().detail, /rate limit/);
  const retryAfter = Number(res.headers['retry-after']);
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
  assert.equal(res.headers['ratelimit-limit'], String(limit));
  assert.equal(res.headers['ratelimit-remaining'], '0');
  assert.equal(res.headers['ratelimit-reset'], String(retryAfter));
  assert.equal(res.headers['ratelimit-policy'], [`"${policy}";q=${limit};w=60`, ...also.map((other) => `"${other.policy}";q=${other.limit};w=60`)].join(', '));
  const state = String(res.headers.ratelimit).split(', ');
  assert.equal(state[0], `"${policy}";r=0;t=${retryAfter}`);
  assert.equal(state.length, 1 + also.length);
  also.forEach((other, i) => assert.match(state[i + 1]!, new RegExp(`^"${other.policy}";r=${other.remaining};t=\\d+$`)));
}

describe('rate limit (memory store)', () => {
  // /metrics answers a non-loopback scrape only with this token (routes/ops/metrics.ts).
  const metricsToken = 'm'.repeat(40);
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: { METRICS_TOKEN: metricsToken } });
  });
  after(() => t.close());

  it('allows 60 public requests per IP, then answers 429; another IP is unaffected', async () => {
    assert.equal(PUBLIC_RATE_LIMIT_PER_MINUTE, 60);
    for (let i = 1; i <= 60; i += 1) {
      const res = await get(t, CURRENCIES, '198.51.100.1');
      assert.equal(res.statusCode, 200, `request ${i}: ${res.body}`);
      assert.equal(res.headers['ratelimit-limit'], '60');
      assert.equal(res.headers['ratelimit-remaining'], String(60 - i));
      const reset = Number(res.headers['ratelimit-reset']);
      assert.ok(reset >= 1 && reset <= 60, `reset ${reset}`);
      assert.equal(res.headers['ratelimit-policy'], '"ip";q=60;w=60');
      assert.equal(res.headers.ratelimit, `"ip";r=${60 - i};t=${reset}`);
      assert.equal(res.headers['retry-after'], undefined);
    }
    assertLimited(await get(t, CURRENCIES, '198.51.100.1'), 60, 'ip');
    // Still limited, on any route, including unknown ones.
    assertLimited(await get(t, '/api/v1/no-such-route', '198.51.100.1'), 60, 'ip');

    const other = await get(t, CURRENCIES, '198.51.100.2');
    assert.equal(other.statusCode, 200);
    assert.equal(other.headers['ratelimit-remaining'], '59');
  });

  it('gives a valid key its own budget (rate_limit_per_minute, per key id), independent of the IP', async () => {
    const ip = '198.51.100.10';
    const partner = await t.createPartner({ rate_limit_per_minute: 5 });
    const auth = { authorization: `Bearer ${partner.apiKey}` };
    for (let i = 1; i <= 5; i += 1) {
      const res = await get(t, ACCOUNT, ip, auth);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['ratelimit-limit'], '5');
      assert.equal(res.headers['ratelimit-remaining'], String(5 - i));
      // Both budgets a key counts against: its own and its partner's (2 keys' worth by default).
      assert.equal(res.headers['ratelimit-policy'], '"key";q=5;w=60, "partner";q=10;w=60');
      assert.match(String(res.headers.ratelimit), new RegExp(`^"key";r=${5 - i};t=\\d+, "partner";r=${10 - i};t=\\d+$`));
    }
    assertLimited(await get(t, ACCOUNT, ip, auth), 5, 'key', [{ policy: 'partner', limit: 10, remaining: 4 }]);
    // The same key from elsewhere is the same budget; X-API-Key is the same key too.
    assertLimited(await get(t, CURRENCIES, '198.51.100.11', { 'x-api-key': partner.apiKey }), 5, 'key', [
      { policy: 'partner', limit: 10, remaining: 3 },
    ]);

    // The address's own budget was not touched by the keyed requests.
    const anonymous = await get(t, CURRENCIES, ip);
    assert.equal(anonymous.statusCode, 200);
    assert.equal(anonymous.headers['ratelimit-remaining'], '59');

    // Another key of the same partner has a whole key budget, but only what is left of the partner's.
    const second = await t.admin('POST', `/admin/v1/partners/${partner.id}/keys`);
    assert.equal(second.statusCode, 201, second.body);
    const res = await get(t, ACCOUNT, ip, { authorization: `Bearer ${second.json<{ api_key: string }>().api_key}` });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers.ratelimit), /^"key";r=4;t=\d+, "partner";r=2;t=\d+$/);
    // The contract's fields follow the budget that binds: the partner's.
    assert.equal(res.headers['ratelimit-limit'], '10');
    assert.equal(res.headers['ratelimit-remaining'], '2');
  });

  it("counts all of a partner's keys against one partner budget: more keys add nothing", async () => {
    const partner = await t.createPartner({ rate_limit_per_minute: 4 });
    const keys = [partner.apiKey];
    for (let i = 0; i < 3; i += 1) {
      const key = await t.admin('POST', `/admin/v1/partners/${partner.id}/keys`);
      assert.equal(key.statusCode, 201, key.body);
      keys.push(key.json<{ api_key: string }>().api_key);
    }
    // Partner budget 8 (2 × 4): two keys spend it; the other two are refused from their first request.
    for (const key of keys.slice(0, 2)) {
      for (let i = 0; i < 4; i += 1) assert.equal((await get(t, ACCOUNT, '198.51.100.12', { 'x-api-key': key })).statusCode, 200);
    }
    for (const key of keys.slice(2)) {
      const res = await get(t, ACCOUNT, '198.51.100.13', { 'x-api-key': key });
      assert.equal(res.statusCode, 429, res.body);
      assert.equal(res.json<{ code: string }>().code, 'rate_limited');
      assert.match(res.json<{ detail: string }>().detail, /8 requests per 60 seconds for all keys of the partner/);
      assert.equal(res.headers['ratelimit-policy'], '"key";q=4;w=60, "partner";q=8;w=60');
      assert.match(String(res.headers.ratelimit), /^"key";r=3;t=\d+, "partner";r=0;t=\d+$/);
      assert.equal(res.headers['ratelimit-limit'], '8');
      assert.equal(res.headers['ratelimit-remaining'], '0');
      assert.equal(res.headers['retry-after'], res.headers['ratelimit-reset']);
    }
    // The other partner's keys are untouched.
    const other = await t.createPartner({ rate_limit_per_minute: 4 });
    assert.equal((await get(t, ACCOUNT, '198.51.100.12', { 'x-api-key': other.apiKey })).statusCode, 200);
  });

  it('counts failed authentications against the client IP', async () => {
    const ip = '198.51.100.20';
    const partner = await t.createPartner();
    const bad = { authorization: `Bearer ${partner.apiKey.slice(0, -2)}xx` };
    for (let i = 1; i <= 30; i += 1) {
      const res = await get(t, ACCOUNT, ip, bad);
      assert.equal(res.statusCode, 401, res.body);
      assert.equal(res.headers['ratelimit-policy'], '"ip";q=60;w=60');
      assert.equal(res.headers['ratelimit-remaining'], String(60 - i));
    }
    for (let i = 1; i <= 29; i += 1) {
      assert.equal((await get(t, ACCOUNT, ip, { authorization: 'Basic abc' })).statusCode, 401);
    }
    assert.equal((await get(t, CURRENCIES, ip)).headers['ratelimit-remaining'], '0');
    // Over the budget the answer is 429, before the key is even looked at.
    assertLimited(await get(t, ACCOUNT, ip, bad), 60, 'ip');
    // A valid key from the same address still has its own budget.
    const ok = await get(t, ACCOUNT, ip, { authorization: `Bearer ${partner.apiKey}` });
    assert.equal(ok.statusCode, 200);
  });

  it('never limits the operator API or the infrastructure endpoints', async () => {
    const ip = '198.51.100.30';
    for (let i = 0; i < 70; i += 1) {
      const res = await t.app.inject({
        method: 'GET',
        url: '/admin/v1/partners',
        remoteAddress: ip,
        headers: { authorization: `Bearer ${t.adminToken}` },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['ratelimit-limit'], undefined);
    }
    for (const url of ['/healthz', '/readyz', '/metrics']) {
      for (let i = 0; i < 61; i += 1) {
        const res = await get(t, url, ip, url === '/metrics' ? { authorization: `Bearer ${metricsToken}` } : {});
        assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
        assert.equal(res.headers['ratelimit-limit'], undefined);
      }
    }
    // None of that used the address's budget.
    assert.equal((await get(t, CURRENCIES, ip)).headers['ratelimit-remaining'], '59');
  });
});

describe('rate limit window', () => {
  const clock = new ManualClock();
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ clock });
  });
  after(() => t.close());

  it('reports the seconds left and gives a whole budget when the window ends', async () => {
    const ip = '192.0.2.1';
    const first = await get(t, CURRENCIES, ip);
    assert.equal(first.headers['ratelimit-reset'], '60');
    clock.advance(18_000);
    const later = await get(t, CURRENCIES, ip);
    assert.equal(later.headers['ratelimit-reset'], '42');
    assert.equal(later.headers.ratelimit, '"ip";r=58;t=42');
    for (let i = 3; i <= 60; i += 1) assert.equal((await get(t, CURRENCIES, ip)).statusCode, 200);
    clock.advance(40_500);
    const limited = await get(t, CURRENCIES, ip);
    assertLimited(limited, 60, 'ip');
    assert.equal(limited.headers['retry-after'], '2'); // 1.5 s left, rounded up
    clock.advance(1_500);
    const fresh = await get(t, CURRENCIES, ip);
    assert.equal(fresh.statusCode, 200);
    assert.equal(fresh.headers['ratelimit-remaining'], '59');
    assert.equal(fresh.headers['ratelimit-reset'], '60');
  });

  it('forgets ended windows (memory stays bounded by active clients)', async () => {
    const own = new ManualClock();
    const limiter = new MemoryRateLimiter(own, 60);
    for (let i = 0; i < 100; i += 1) limiter.consume(`ip:${i}`, 60);
    own.advance(61_000);
    const decision = limiter.consume('ip:new', 60);
    assert.equal(decision.status, 'allowed');
    assert.equal((limiter as unknown as { windows: Map<string, unknown> }).windows.size, 1);
    await limiter.close();
  });
});

describe('rate limit and TRUST_PROXY', () => {
  it('with TRUST_PROXY=true, X-Forwarded-For names the client', async () => {
    const t = await buildTestApp({ env: { TRUST_PROXY: 'true' } });
    try {
      const proxy = '10.0.0.1';
      for (let i = 0; i < 60; i += 1) {
        assert.equal((await get(t, CURRENCIES, proxy, { 'x-forwarded-for': '203.0.113.7' })).statusCode, 200);
      }
      assertLimited(await get(t, CURRENCIES, proxy, { 'x-forwarded-for': '203.0.113.7' }), 60, 'ip');
      const other = await get(t, CURRENCIES, proxy, { 'x-forwarded-for': '203.0.113.8' });
      assert.equal(other.statusCode, 200);
      assert.equal(other.headers['ratelimit-remaining'], '59');
    } finally {
      await t.close();
    }
  });

  it('without TRUST_PROXY, X-Forwarded-For is ignored: the connection address counts', async () => {
    const t = await buildTestApp();
    try {
      const client = '10.0.0.2';
      for (let i = 0; i < 60; i += 1) {
        const res = await get(t, CURRENCIES, client, { 'x-forwarded-for': `203.0.113.${i}` });
        assert.equal(res.statusCode, 200);
      }
      assertLimited(await get(t, CURRENCIES, client, { 'x-forwarded-for': '203.0.113.200' }), 60, 'ip');
    } finally {
      await t.close();
    }
  });
});
