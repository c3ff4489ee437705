import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../helpers/process/waits.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';
import { CabinetClient, cabinetPerson } from '../helpers/cabinet-client.js';

const PASSWORD = 'correct horse battery staple 36';

/**
 * REDIS_URL set and nothing answering there (issue 36.4): readiness reports Redis, the request
 * budgets pass unchecked as documented (fail open), and the security throttles (failed admin
 * tokens, cabinet sign-ins) count in-process instead of opening.
 */
describe('Redis configured but unreachable', () => {
  const clock = new ManualClock(new Date('2026-03-01T10:00:00.000Z'));
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ clock, env: { WORKER: 'off', REDIS_URL: `redis://127.0.0.1:${await freePort()}` } });
  });
  after(() => t.close());

  it('/readyz stays ready and says redis: false; /admin/v1/health has its ping', async () => {
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 200, ready.body);
    const body = ready.json<{ ready: boolean; checks: { database: boolean; redis?: boolean } }>();
    assert.equal(body.ready, true);
    assert.equal(body.checks.database, true);
    assert.equal(body.checks.redis, false, 'Redis is reported');
    const health = (await t.admin('GET', '/admin/v1/health')).json<{ ready: boolean; redis: { ok: boolean; ping_ms: number } | null }>();
    assert.equal(health.ready, true);
    assert.equal(health.redis?.ok, false);
    assert.equal(typeof health.redis?.ping_ms, 'number');
  });

  it('failed admin tokens are still limited per address: 10 answered 401, then 429', async () => {
    const ip = '203.0.113.36';
    for (let i = 0; i < 10; i++) {
      const res = await t.app.inject({ method: 'GET', url: '/admin/v1/partners', remoteAddress: ip, headers: { authorization: `Bearer ${randomBytes(32).toString('base64url')}` } });
      assert.equal(res.statusCode, 401, res.body);
    }
    const limited = await t.app.inject({ method: 'GET', url: '/admin/v1/partners', remoteAddress: ip, headers: { authorization: `Bearer ${t.adminToken}` } });
    assert.equal(limited.statusCode, 429, 'the throttle did not open with Redis away');
    assert.ok(Number(limited.headers['retry-after']) > 0);
    // Successes are given back, as with Redis: the operator on another address is not limited.
    for (let i = 0; i < 15; i++) assert.equal((await t.admin('GET', '/admin/v1/partners')).statusCode, 200);
    clock.advance(61_000);
    const later = await t.app.inject({ method: 'GET', url: '/admin/v1/partners', remoteAddress: ip, headers: { authorization: `Bearer ${t.adminToken}` } });
    assert.equal(later.statusCode, 200, 'the window ends');
  });

  it('cabinet sign-in failures are still limited per account: the 6th is refused', async () => {
    await cabinetPerson(t, { email: 'target@redis-down.example', password: PASSWORD, address: '198.51.100.70' });
    for (let i = 0; i < 5; i++) {
      const guesser = new CabinetClient(t, `203.0.113.${100 + i}`);
      await guesser.get('/cabinet/login');
      assert.equal((await guesser.post('/cabinet/login', { email: 'target@redis-down.example', password: `guess ${i}` })).statusCode, 401);
    }
    const owner = new CabinetClient(t, '198.51.100.71');
    await owner.get('/cabinet/login');
    const locked = await owner.post('/cabinet/login', { email: 'target@redis-down.example', password: PASSWORD });
    assert.equal(locked.statusCode, 429, 'the sign-in throttle did not open with Redis away');
  });

  it('request budgets stay fail-open as documented: a public request passes unchecked', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/currencies', remoteAddress: '203.0.113.200' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['ratelimit-remaining'], undefined, 'not counted');
    assert.equal(res.headers['ratelimit-limit'], '60');
  });
});
