import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { ManualClock, buildTestApp, type TestApp } from '../helpers/test-app.js';

const PARTNERS = '/admin/v1/partners';
const wrongToken = (): string => randomBytes(32).toString('base64url');

/** Issue 12 #7: failed operator-token attempts are limited per client address, and logged. */
describe('operator API: failed admin token attempts per address', () => {
  const clock = new ManualClock();
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ clock, env: { WORKER: 'off' } });
  });
  after(() => t.close());

  const admin = (remoteAddress: string, token: string | undefined) =>
    t.app.inject({ method: 'GET', url: PARTNERS, remoteAddress, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });

  it('ADMIN_AUTH_FAILURES_PER_MINUTE: 10 by default, configurable', () => {
    assert.equal(loadConfig({}).limits.adminAuthFailuresPerMinute, 10);
    assert.equal(loadConfig({ ADMIN_AUTH_FAILURES_PER_MINUTE: '3' }).limits.adminAuthFailuresPerMinute, 3);
    assert.throws(() => loadConfig({ ADMIN_AUTH_FAILURES_PER_MINUTE: '0' }), /ADMIN_AUTH_FAILURES_PER_MINUTE/);
  });

  it('answers 10 failures 401, then 429 with Retry-After, the right token included; the window ends', async () => {
    const ip = '203.0.113.1';
    const tokens: string[] = [];
    for (let i = 0; i < 10; i += 1) {
      const token = wrongToken();
      tokens.push(token);
      const res = await admin(ip, i % 2 === 0 ? token : undefined);
      assert.equal(res.statusCode, 401, res.body);
      assert.equal(res.json<{ code: string }>().code, 'unauthorized');
    }
    const limited = await admin(ip, wrongToken());
    assert.equal(limited.statusCode, 429, limited.body);
    assert.equal(limited.json<{ code: string }>().code, 'rate_limited');
    assert.equal(limited.headers['retry-after'], '60');
    // Over the budget the token is not even compared: the right one is refused too.
    assert.equal((await admin(ip, t.adminToken)).statusCode, 429);
    // Another address is not affected.
    assert.equal((await admin('203.0.113.2', t.adminToken)).statusCode, 200);

    clock.advance(60_000);
    assert.equal((await admin(ip, t.adminToken)).statusCode, 200);

    const failures = t.logs.filter((line) => line.includes('admin authentication failed') && line.includes(ip));
    assert.equal(failures.length, 10);
    assert.ok(failures.every((line) => (JSON.parse(line) as { level: number }).level === 40), 'logged at warn');
    assert.match(failures[9]!, /refused \(429\) until its window ends/);
    assert.ok(failures.some((line) => line.includes('"reason":"wrong token"')));
    assert.ok(failures.some((line) => line.includes('"reason":"no bearer token"')));
    for (const token of tokens) assert.ok(!t.logs.some((line) => line.includes(token)), 'a presented token was logged');
  });

  it('does not count successes: an operator making many requests is never limited', async () => {
    const ip = '203.0.113.3';
    for (let i = 0; i < 9; i += 1) assert.equal((await admin(ip, wrongToken())).statusCode, 401);
    for (let i = 0; i < 40; i += 1) assert.equal((await admin(ip, t.adminToken)).statusCode, 200);
    assert.equal((await admin(ip, wrongToken())).statusCode, 401);
    assert.equal((await admin(ip, wrongToken())).statusCode, 429);
  });

  it('counts every attempt before it is tried: of 40 parallel guesses, 10 are compared', async () => {
    const ip = '203.0.113.4';
    const answers = await Promise.all(Array.from({ length: 40 }, () => admin(ip, wrongToken())));
    const statuses = answers.map((res) => res.statusCode);
    assert.equal(statuses.filter((status) => status === 401).length, 10, statuses.join(' '));
    assert.equal(statuses.filter((status) => status === 429).length, 30, statuses.join(' '));
  });
});
