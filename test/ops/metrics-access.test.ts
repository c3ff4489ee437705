import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

const TOKEN = 'metrics-token-for-tests-0123456789abcdef';

function assertRefused(res: LightMyRequestResponse): void {
  assert.equal(res.statusCode, 401, res.body);
  const body = res.json<{ detail: string; code: string }>();
  assert.equal(body.code, 'unauthorized');
  assert.equal(typeof body.detail, 'string');
  assert.doesNotMatch(res.body, /http_requests_total/);
}

/**
 * /metrics (issue 12): the bearer METRICS_TOKEN from anywhere, else only a scrape from loopback
 * that no proxy relayed; without METRICS_TOKEN, loopback only.
 */
describe('who may scrape /metrics', () => {
  describe('with METRICS_TOKEN', () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp({ env: { WORKER: 'off', METRICS_TOKEN: TOKEN } });
    });
    after(() => t.close());
    const scrape = (remoteAddress: string, headers: Record<string, string> = {}) =>
      t.app.inject({ method: 'GET', url: '/metrics', remoteAddress, headers });

    it('the token from anywhere: 200', async () => {
      for (const remoteAddress of ['203.0.113.7', '2001:db8::1', '127.0.0.1']) {
        const res = await scrape(remoteAddress, { authorization: `Bearer ${TOKEN}` });
        assert.equal(res.statusCode, 200, res.body);
        assert.match(res.body, /^# TYPE http_requests_total counter$/m);
      }
    });

    it('another token, the admin token or none from elsewhere: 401 {detail, code}', async () => {
      assertRefused(await scrape('203.0.113.7'));
      assertRefused(await scrape('203.0.113.7', { authorization: `Bearer ${TOKEN}x` }));
      assertRefused(await scrape('203.0.113.7', { authorization: `Bearer ${t.adminToken}` }));
      // A wrong token is refused even from loopback: it is a mistake worth seeing.
      assertRefused(await scrape('127.0.0.1', { authorization: 'Bearer nope' }));
    });

    it('loopback without a token: 200; relayed by a proxy on this host: 401', async () => {
      for (const remoteAddress of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '127.8.9.10']) {
        assert.equal((await scrape(remoteAddress)).statusCode, 200, remoteAddress);
      }
      for (const header of ['x-forwarded-for', 'forwarded', 'x-real-ip']) {
        assertRefused(await scrape('127.0.0.1', { [header]: header === 'forwarded' ? 'for=198.51.100.4' : '198.51.100.4' }));
      }
    });
  });

  describe('without METRICS_TOKEN', () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp({ env: { WORKER: 'off' } });
    });
    after(() => t.close());

    it('loopback only', async () => {
      assert.equal((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode, 200);
      assertRefused(await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '10.0.0.8' }));
      assertRefused(await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '10.0.0.8', headers: { authorization: 'Bearer anything-at-all-0123456789abcdef' } }));
    });
  });
});
