// test-direct: postgres
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock, buildTestApp, type TestApp } from '../helpers/test-app.js';
import { TableQueryCounter } from '../helpers/query-counter.js';
import { unknownKey, wrongSecret } from './auth-helpers.js';

const ACCOUNT = '/api/v1/partner/account';
const CURRENCIES = '/api/v1/currencies';

/**
 * Issue 12 #4: a key id the process does not know costs a database read only once. Issue 36.7: a
 * key is read even from an address whose anonymous budget is spent (a valid key is judged by its
 * own budgets only), but not from an address that has failed 60 key checks in the window.
 */
describe('key lookups: unknown, malformed and revoked key ids', () => {
  const clock = new ManualClock();
  const keyReads = new TableQueryCounter('api_keys');
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ clock, env: { WORKER: 'off' }, wrapDatabase: keyReads.wrap });
  });
  after(() => t.close());

  const account = (remoteAddress: string, key: string) =>
    t.app.inject({ method: 'GET', url: ACCOUNT, remoteAddress, headers: { authorization: `Bearer ${key}` } });

  /** Spends what is left of the address's public budget (60 per minute). */
  async function exhaust(remoteAddress: string): Promise<void> {
    for (let i = 0; i <= 60; i += 1) {
      const res = await t.app.inject({ method: 'GET', url: CURRENCIES, remoteAddress });
      if (res.statusCode === 429) return;
      assert.equal(res.statusCode, 200, res.body);
    }
    assert.fail(`${remoteAddress} was never limited`);
  }

  /** The reads of api_keys made while `action` runs. */
  async function readsDuring(action: () => Promise<void>): Promise<number> {
    const before = keyReads.count;
    await action();
    return keyReads.count - before;
  }

  it('reads an unknown key id once; repeats answer from memory, the same 401', async () => {
    const key = unknownKey();
    assert.equal(await readsDuring(async () => assert.equal((await account('198.51.100.1', key)).statusCode, 401)), 1);
    const repeats = await readsDuring(async () => {
      for (let i = 0; i < 10; i += 1) {
        const res = await account('198.51.100.1', key);
        assert.equal(res.statusCode, 401);
        assert.deepEqual(res.json(), { detail: 'invalid API key', code: 'unauthorized', errors: [{ code: 'unauthorized', field: null, detail: 'invalid API key' }] });
      }
    });
    assert.equal(repeats, 0);
  });

  it('from an address whose anonymous budget is spent, an unknown id is still read (it could be a valid key), then 429 on the address', async () => {
    const ip = '198.51.100.2';
    await exhaust(ip);
    const reads = await readsDuring(async () => {
      for (let i = 0; i < 5; i += 1) {
        const res = await account(ip, unknownKey());
        assert.equal(res.statusCode, 429, res.body);
        assert.equal(res.json<{ code: string }>().code, 'rate_limited');
        assert.equal(res.headers['ratelimit-policy'], '"ip";q=60;w=60');
      }
    });
    assert.equal(reads, 5);
  });

  it('an address that failed 60 key checks in the window gets no more reads: new ids are 429 unread', async () => {
    const ip = '198.51.100.9';
    const failed = await readsDuring(async () => {
      for (let i = 0; i < 60; i += 1) assert.equal((await account(ip, unknownKey())).statusCode, 401);
    });
    assert.equal(failed, 60);
    const reads = await readsDuring(async () => {
      for (let i = 0; i < 20; i += 1) {
        const res = await account(ip, unknownKey());
        assert.equal(res.statusCode, 429, res.body);
        assert.equal(res.json<{ code: string }>().code, 'rate_limited');
        assert.ok(Number(res.headers['retry-after']) >= 1);
      }
    });
    assert.equal(reads, 0);
    // The window ends: the address's key checks are read again.
    clock.advance(61_000);
    assert.equal(await readsDuring(async () => assert.equal((await account(ip, unknownKey())).statusCode, 401)), 1);
  });

  it('issue 36.7: a valid key not yet read by this process (a restart) is judged by its own budgets, not the spent address budget', async () => {
    const partner = await t.createPartner();
    const ip = '198.51.100.10';
    await exhaust(ip);
    const reads = await readsDuring(async () => {
      const res = await account(ip, partner.apiKey);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['ratelimit-policy'], '"key";q=600;w=60, "partner";q=1200;w=60');
      assert.equal(res.headers['ratelimit-remaining'], '599');
    });
    assert.equal(reads, 1);
    // Its requests never count against the address either: anonymous traffic stays refused, and
    // the key keeps passing.
    assert.equal((await t.app.inject({ method: 'GET', url: CURRENCIES, remoteAddress: ip })).statusCode, 429);
    for (let i = 0; i < 5; i += 1) assert.equal((await account(ip, partner.apiKey)).statusCode, 200);
  });

  it('a malformed key is never read, throttled or not', async () => {
    const ip = '198.51.100.3';
    const reads = await readsDuring(async () => {
      assert.equal((await account(ip, 'pk_short.secret')).statusCode, 401);
      assert.equal((await account(ip, 'no-dot-at-all')).statusCode, 401);
      await exhaust(ip);
      assert.equal((await account(ip, 'pk_short.secret')).statusCode, 429);
    });
    assert.equal(reads, 0);
  });

  it('a revoked key is read once after revocation, then answers from memory', async () => {
    const partner = await t.createPartner();
    assert.equal((await account('198.51.100.4', partner.apiKey)).statusCode, 200);
    const revoke = await t.admin('DELETE', `/admin/v1/keys/${partner.keyId}`);
    assert.equal(revoke.statusCode, 204, revoke.body);

    const throttled = '198.51.100.5';
    await exhaust(throttled);
    // Read (it could have been valid), refused: a failed key counts against the address, 429.
    assert.equal(await readsDuring(async () => assert.equal((await account(throttled, partner.apiKey)).statusCode, 429)), 1);

    const repeats = await readsDuring(async () => {
      assert.equal((await account('198.51.100.6', partner.apiKey)).statusCode, 401);
      assert.equal((await account('198.51.100.6', wrongSecret(partner.apiKey))).statusCode, 401);
      assert.equal((await account(throttled, partner.apiKey)).statusCode, 429);
    });
    assert.equal(repeats, 0);
  });

  it('a valid key in use keeps its own budget from a throttled address, without a read', async () => {
    const partner = await t.createPartner();
    assert.equal((await account('198.51.100.7', partner.apiKey)).statusCode, 200);
    const ip = '198.51.100.8';
    await exhaust(ip);
    const reads = await readsDuring(async () => {
      const res = await account(ip, partner.apiKey);
      assert.equal(res.statusCode, 200, res.body);
      assert.match(String(res.headers['ratelimit-policy']), /"key"/);
    });
    assert.equal(reads, 0);
  });

});
