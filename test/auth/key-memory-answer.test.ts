import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock, buildTestApp, type TestApp } from '../helpers/test-app.js';
import { unknownKey, wrongSecret } from './auth-helpers.js';

/**
 * The caller identification asks `authenticateFromMemory` once per keyed request (issue 33: the
 * key was parsed twice, by `answersFromMemory` and then `authenticate`). Whenever it answers, its
 * answer is `authenticate`'s; it answers undefined exactly when `authenticate` must read the key.
 */
describe('API keys: the answer from memory is the full check\'s', () => {
  const clock = new ManualClock();
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ clock, env: { WORKER: 'off' } });
  });
  after(() => t.close());

  it('answers as authenticate does for a malformed, a cached, a wrong-secret and a remembered unknown key', async () => {
    const keys = t.runtime.apiKeys;
    const { apiKey } = await t.createPartner();
    const unknown = unknownKey();
    for (const presented of ['no-dot', 'pk_x.', apiKey, wrongSecret(apiKey), unknown]) {
      const full = await keys.authenticate(presented);
      assert.deepEqual(keys.authenticateFromMemory(presented), full, presented.slice(0, 8));
    }
  });

  it('answers undefined for a key not read yet, and again once the cache entry is stale', async () => {
    const keys = t.runtime.apiKeys;
    const { apiKey } = await t.createPartner();
    const unknown = unknownKey();
    assert.equal(keys.authenticateFromMemory(apiKey), undefined);
    assert.equal(keys.authenticateFromMemory(unknown), undefined);
    assert.equal((await keys.authenticate(apiKey)).ok, true);
    await keys.authenticate(unknown);
    assert.equal(keys.authenticateFromMemory(apiKey)?.ok, true);
    assert.equal(keys.authenticateFromMemory(unknown)?.ok, false);
    clock.advance(t.config.cacheRefreshMs + 1);
    assert.equal(keys.authenticateFromMemory(apiKey), undefined);
    assert.equal(keys.authenticateFromMemory(unknown), undefined);
  });
});
