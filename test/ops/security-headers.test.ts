import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

/** What every response carries (issue 12), whatever route, status or content type. */
const EXPECTED: Record<string, RegExp> = {
  'content-security-policy': /^default-src 'self';.*frame-ancestors 'none';.*object-src 'none';.*script-src 'self';/,
  'strict-transport-security': /^max-age=31536000; includeSubDomains$/,
  'x-content-type-options': /^nosniff$/,
  'x-frame-options': /^SAMEORIGIN$/,
  'referrer-policy': /^no-referrer$/,
  'cross-origin-opener-policy': /^same-origin$/,
  'cross-origin-resource-policy': /^cross-origin$/,
};

describe('security headers on every response', () => {
  let t: TestApp;
  let apiKey: string;
  before(async () => {
    t = await buildTestApp({ env: { WORKER: 'off' } });
    ({ apiKey } = await t.createPartner());
  });
  after(() => t.close());

  it('success, error, docs, operator and framework answers all carry them; none says what serves it', async () => {
    const auth = { authorization: `Bearer ${apiKey}` };
    const requests: Array<[InjectOptions & { url: string }, number]> = [
      [{ method: 'GET', url: '/api/v1/currencies' }, 200],
      [{ method: 'GET', url: '/api/v1/partner/rates?coin_from=BTC&coin_to=ETH' }, 200],
      [{ method: 'GET', url: '/api/v1/partner/rates?coin_from=BTC' }, 400],
      [{ method: 'GET', url: '/api/v1/partner/account' }, 401],
      [{ method: 'GET', url: '/api/v1/partner/orders/EX-NOPE00', headers: auth }, 404],
      [{ method: 'POST', url: '/api/v1/partner/orders', headers: { ...auth, 'content-type': 'application/json' }, payload: '{' }, 400],
      [{ method: 'POST', url: '/api/v1/partner/orders', headers: { ...auth, 'content-type': 'text/plain' }, payload: 'x' }, 415],
      [{ method: 'GET', url: '/nowhere' }, 404],
      // Routing fails before any hook: the framework error handler sets them itself.
      [{ method: 'GET', url: '/api/v1/partner/orders/%E0%A4%A', headers: auth }, 404],
      [{ method: 'GET', url: '/docs' }, 200],
      [{ method: 'GET', url: '/docs/static/swagger-ui-bundle.js' }, 200],
      [{ method: 'GET', url: '/static/icons/btc.svg' }, 200],
      [{ method: 'GET', url: '/readyz' }, 200],
      [{ method: 'GET', url: '/metrics' }, 200],
      [{ method: 'GET', url: '/admin/v1/partners' }, 401],
      [{ method: 'GET', url: '/admin/v1/partners', headers: { authorization: `Bearer ${t.adminToken}` } }, 200],
    ];
    for (const [request, status] of requests) {
      const res = await t.app.inject(request);
      assert.equal(res.statusCode, status, `${request.method} ${request.url}: ${res.body.slice(0, 200)}`);
      for (const [header, pattern] of Object.entries(EXPECTED)) {
        assert.match(String(res.headers[header]), pattern, `${header} on ${request.method} ${request.url}`);
      }
      assert.equal(res.headers['x-powered-by'], undefined);
    }
  });
});
