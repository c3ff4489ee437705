// test-engines: one (scripts/run-tests.ts): the limiter's in-process store is what is tested; the database only holds the keys it counts for.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

const CURRENCIES = '/api/v1/currencies';

/**
 * Issue 33: a key's buckets and its RateLimit-Policy value are made once per key and kept with
 * the partner row they came from, not rebuilt per request. A budget the operator changes must
 * still show in the very next answer, as it did when they were rebuilt every time.
 */
describe('rate limit plans kept per key', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const get = (key: string) => t.app.inject({ method: 'GET', url: CURRENCIES, remoteAddress: '198.51.100.40', headers: { 'x-api-key': key } });

  it('follows a changed rate_limit_per_minute from the next request', async () => {
    const partner = await t.createPartner({ rate_limit_per_minute: 7 });
    for (let i = 1; i <= 2; i += 1) {
      const res = await get(partner.apiKey);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['ratelimit-policy'], '"key";q=7;w=60, "partner";q=14;w=60');
      assert.equal(res.headers['ratelimit-limit'], '7');
      assert.equal(res.headers['ratelimit-remaining'], String(7 - i));
    }
    const patched = await t.admin('PATCH', `/admin/v1/partners/${partner.id}`, { rate_limit_per_minute: 9 });
    assert.equal(patched.statusCode, 200, patched.body);
    const res = await get(partner.apiKey);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['ratelimit-policy'], '"key";q=9;w=60, "partner";q=18;w=60');
    assert.equal(res.headers['ratelimit-limit'], '9');
    // The window's count goes on: the third request of this key.
    assert.equal(res.headers['ratelimit-remaining'], '6');
    assert.match(String(res.headers.ratelimit), /^"key";r=6;t=\d+, "partner";r=15;t=\d+$/);
  });

  it('gives each key of a partner its own bucket and both the same partner bucket', async () => {
    const partner = await t.createPartner({ rate_limit_per_minute: 3 });
    const second = await t.admin('POST', `/admin/v1/partners/${partner.id}/keys`);
    assert.equal(second.statusCode, 201, second.body);
    const other = second.json<{ api_key: string }>().api_key;
    assert.match(String((await get(partner.apiKey)).headers.ratelimit), /^"key";r=2;t=\d+, "partner";r=5;t=\d+$/);
    assert.match(String((await get(other)).headers.ratelimit), /^"key";r=2;t=\d+, "partner";r=4;t=\d+$/);
    assert.match(String((await get(partner.apiKey)).headers.ratelimit), /^"key";r=1;t=\d+, "partner";r=3;t=\d+$/);
  });
});
