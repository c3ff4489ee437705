import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

describe('smoke', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());
  it('serves currencies', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/currencies' });
    assert.equal(res.statusCode, 200);
    assert.ok(res.json<unknown[]>().length >= 14);
  });
});
