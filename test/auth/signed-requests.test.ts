import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { SIGNATURE_WINDOW_MS } from '../../src/plugins/partner-auth.js';
import { ApiError } from '../../src/errors.js';
import { DatabaseSignatureNonces, MemorySignatureNonces, RedisSignatureNonces } from '../../src/services/signature-nonces.js';
import { ORDER_MIX } from '../helpers/process/order-mix.js';
import { ManualClock, buildTestApp, type TestApp } from '../helpers/test-app.js';
import { REDIS_URL, redisProxy, redisReachable, redisSkip, uniquePrefix, withKeyPrefix } from '../rate-limit/redis-support.js';
import { assertErrorItems } from '../helpers/error-items.js';

const ACCOUNT = '/api/v1/partner/account';
const ORDERS = '/api/v1/partner/orders';
const RATES = '/api/v1/partner/rates?coin_from=BTC&coin_to=ETH&amount=0.1';
const redisSkipReason = redisSkip(await redisReachable());
const secretOf = (apiKey: string): string => apiKey.slice(apiKey.indexOf('.') + 1);

/** docs/contract.md §7.7: hex HMAC-SHA256 of `{X-Timestamp}.{METHOD}.{request target}.{body}`. */
function sign(apiKey: string, timestamp: number | string, method: string, target: string, body = ''): string {
  return createHmac('sha256', secretOf(apiKey)).update(`${timestamp}.${method}.${target}.${body}`).digest('hex');
}

function assertRefused(res: LightMyRequestResponse, detail: string | RegExp): void {
  assert.equal(res.statusCode, 401, res.body);
  const body = res.json<{ detail: string; code: string }>();
  assert.deepEqual(Object.keys(body).sort(), ['code', 'detail', 'errors']);
  assertErrorItems(body);
  assert.equal(body.code, 'invalid_signature');
  if (typeof detail === 'string') assert.equal(body.detail, detail);
  else assert.match(body.detail, detail);
}

describe('replay-proof signing (X-Timestamp, docs/contract.md §7.7)', () => {
  const clock = new ManualClock();
  let t: TestApp;
  let apiKey: string;
  before(async () => {
    t = await buildTestApp({ clock, env: { WORKER: 'off' } });
    apiKey = (await t.createPartner()).apiKey;
  });
  after(() => t.close());

  const now = (): number => clock.now().getTime();
  /** A request signed at `timestamp` (default now); `signature` replaces the right one. */
  function signed(method: 'GET' | 'POST', url: string, options: { body?: string; timestamp?: number; signature?: string } = {}): InjectOptions {
    const timestamp = options.timestamp ?? now();
    const body = options.body ?? '';
    return {
      method,
      url,
      headers: {
        authorization: `Bearer ${apiKey}`,
        'x-timestamp': String(timestamp),
        'x-signature': options.signature ?? sign(apiKey, timestamp, method, url, body),
        ...(body === '' ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === '' ? {} : { payload: body }),
    };
  }

  it('good: a signed GET is accepted once; the same request again is 401 replayed request', async () => {
    const request = signed('GET', ACCOUNT);
    assert.equal((await t.app.inject(request)).statusCode, 200);
    assertRefused(await t.app.inject(request), 'replayed request');
    // A second later it is a new signature, accepted.
    clock.advance(1);
    assert.equal((await t.app.inject(signed('GET', ACCOUNT))).statusCode, 200);
  });

  it('good: a signed POST covers the body; its replay is refused and creates no second order', async () => {
    const body = JSON.stringify(ORDER_MIX[0]);
    const request = signed('POST', ORDERS, { body });
    const first = await t.app.inject(request);
    assert.equal(first.statusCode, 201, first.body);
    assertRefused(await t.app.inject(request), 'replayed request');
    // The same signature over another body is not a valid signature.
    const other = JSON.stringify({ ...ORDER_MIX[0], amount_from: 0.02 });
    const headers = request.headers as Record<string, string>;
    assertRefused(await t.app.inject({ ...request, payload: other, headers }), 'invalid signature');
  });

  it('GET with a query: the target as sent, path and query; reordered or altered, it no longer matches', async () => {
    clock.advance(1);
    const res = await t.app.inject(signed('GET', RATES));
    assert.equal(res.statusCode, 200, res.body);
    const timestamp = now();
    const signature = sign(apiKey, timestamp, 'GET', RATES);
    const reordered = '/api/v1/partner/rates?coin_to=ETH&coin_from=BTC&amount=0.1';
    assertRefused(await t.app.inject(signed('GET', reordered, { timestamp, signature })), 'invalid signature');
    const altered = '/api/v1/partner/rates?coin_from=BTC&coin_to=ETH&amount=0.2';
    assertRefused(await t.app.inject(signed('GET', altered, { timestamp, signature })), 'invalid signature');
  });

  it('stale: more than 5 minutes old is refused; exactly 5 minutes is accepted', async () => {
    assertRefused(await t.app.inject(signed('GET', ACCOUNT, { timestamp: now() - SIGNATURE_WINDOW_MS - 1 })), 'X-Timestamp is more than 5 minutes old');
    assert.equal((await t.app.inject(signed('GET', ACCOUNT, { timestamp: now() - SIGNATURE_WINDOW_MS }))).statusCode, 200);
  });

  it('future: more than 5 minutes ahead is refused; exactly 5 minutes is accepted', async () => {
    assertRefused(
      await t.app.inject(signed('GET', ACCOUNT, { timestamp: now() + SIGNATURE_WINDOW_MS + 1 })),
      'X-Timestamp is more than 5 minutes ahead of the server time',
    );
    assert.equal((await t.app.inject(signed('GET', ACCOUNT, { timestamp: now() + SIGNATURE_WINDOW_MS }))).statusCode, 200);
  });

  it('wrong signature: another secret, v1 body-only form, or another method', async () => {
    const timestamp = now() - 10;
    const otherKey = (await t.createPartner()).apiKey;
    assertRefused(await t.app.inject(signed('GET', ACCOUNT, { timestamp, signature: sign(otherKey, timestamp, 'GET', ACCOUNT) })), 'invalid signature');
    const bodyOnly = createHmac('sha256', secretOf(apiKey)).update('').digest('hex');
    assertRefused(await t.app.inject(signed('GET', ACCOUNT, { timestamp, signature: bodyOnly })), 'invalid signature');
    assertRefused(await t.app.inject(signed('GET', ACCOUNT, { timestamp, signature: sign(apiKey, timestamp, 'POST', ACCOUNT) })), 'invalid signature');
    assertRefused(await t.app.inject(signed('GET', ACCOUNT, { timestamp, signature: 'zz' })), 'invalid signature');
  });

  it('a refused signature is not recorded: the right one for the same timestamp is still accepted', async () => {
    const timestamp = now() - 20;
    assertRefused(await t.app.inject(signed('GET', ACCOUNT, { timestamp, signature: '0'.repeat(64) })), 'invalid signature');
    assert.equal((await t.app.inject(signed('GET', ACCOUNT, { timestamp }))).statusCode, 200);
  });

  it('a replay in upper-case hex is the same signature: refused', async () => {
    const timestamp = now() - 30;
    const signature = sign(apiKey, timestamp, 'GET', ACCOUNT);
    assert.equal((await t.app.inject(signed('GET', ACCOUNT, { timestamp, signature }))).statusCode, 200);
    assertRefused(await t.app.inject(signed('GET', ACCOUNT, { timestamp, signature: signature.toUpperCase() })), 'replayed request');
  });

  it('X-Timestamp without X-Signature, or not Unix milliseconds: refused', async () => {
    const noSignature = await t.app.inject({ method: 'GET', url: ACCOUNT, headers: { authorization: `Bearer ${apiKey}`, 'x-timestamp': String(now()) } });
    assertRefused(noSignature, /X-Timestamp needs one X-Signature/);
    for (const bad of ['', '12.5', '-1', '1e12', 'now', '1'.repeat(16)]) {
      const res = await t.app.inject({
        method: 'GET',
        url: ACCOUNT,
        headers: { authorization: `Bearer ${apiKey}`, 'x-timestamp': bad, 'x-signature': sign(apiKey, bad, 'GET', ACCOUNT) },
      });
      assertRefused(res, 'X-Timestamp must be one Unix time in milliseconds');
    }
  });

  it('without X-Timestamp, v1 stands: the body-only signature, any number of times', async () => {
    const signature = createHmac('sha256', secretOf(apiKey)).update('').digest('hex');
    for (let i = 0; i < 3; i += 1) {
      const res = await t.app.inject({ method: 'GET', url: ACCOUNT, headers: { authorization: `Bearer ${apiKey}`, 'x-signature': signature } });
      assert.equal(res.statusCode, 200, res.body);
    }
  });

  it('the OpenAPI document lists X-Timestamp and X-Signature on the keyed routes', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json<{
      paths: Record<string, Record<string, { parameters?: { name: string; in: string; description?: string }[] }>>;
    }>();
    for (const [path, method] of [['/api/v1/partner/orders', 'post'], ['/api/v1/partner/orders/{order_id}', 'get'], ['/api/v1/partner/account', 'get'], ['/api/v1/partner/rates', 'get']] as const) {
      const headers = (doc.paths[path]?.[method]?.parameters ?? []).filter((parameter) => parameter.in === 'header').map((parameter) => parameter.name.toLowerCase());
      assert.ok(headers.includes('x-timestamp') && headers.includes('x-signature'), `${method} ${path}: ${headers.join(', ')}`);
    }
    const timestamp = doc.paths['/api/v1/partner/orders']?.post?.parameters?.find((parameter) => parameter.name.toLowerCase() === 'x-timestamp');
    assert.match(timestamp?.description ?? '', /replayed request/);
  });
});

describe('signature nonces: the stores', () => {
  const clock = new ManualClock();

  it('memory: once per id until it expires', async () => {
    const nonces = new MemorySignatureNonces(clock);
    const until = new Date(clock.now().getTime() + 1000);
    assert.equal(await nonces.claim('a', until), true);
    assert.equal(await nonces.claim('a', until), false);
    assert.equal(await nonces.claim('b', until), true);
    clock.advance(1000);
    assert.equal(await nonces.claim('a', new Date(clock.now().getTime() + 1000)), true);
    await nonces.close();
  });

  describe('database (this pass: PGlite or PostgreSQL)', () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp({ clock, env: { WORKER: 'off' } });
    });
    after(() => t.close());

    it('once per id across two stores on one database; an expired row is taken over', async () => {
      const log = { warn: () => undefined };
      const one = new DatabaseSignatureNonces(t.db.handle.db, clock, log);
      const two = new DatabaseSignatureNonces(t.db.handle.db, clock, log);
      const until = new Date(clock.now().getTime() + 1000);
      const claims = await Promise.all([one.claim('k:1', until), two.claim('k:1', until)]);
      assert.deepEqual(claims.sort(), [false, true]);
      assert.equal(await two.claim('k:2', until), true);
      clock.advance(1000);
      assert.equal(await one.claim('k:1', new Date(clock.now().getTime() + 1000)), true);
      assert.equal(await two.claim('k:1', new Date(clock.now().getTime() + 1000)), false);
      await one.close();
      await two.close();
    });
  });

  describe('Redis', { skip: redisSkipReason }, () => {
    it('fails closed: a signature accepted through Redis is not accepted again while Redis is away', async () => {
      const proxy = redisProxy(REDIS_URL);
      await proxy.up();
      const app = await buildTestApp({ clock, env: { WORKER: 'off', REDIS_URL: withKeyPrefix(`redis://127.0.0.1:${proxy.port}`, uniquePrefix()) } });
      try {
        const key = (await app.createPartner()).apiKey;
        const timestamp = clock.now().getTime();
        const request: InjectOptions = {
          method: 'GET',
          url: ACCOUNT,
          headers: { authorization: `Bearer ${key}`, 'x-timestamp': String(timestamp), 'x-signature': sign(key, timestamp, 'GET', ACCOUNT) },
        };
        assert.equal((await app.app.inject(request)).statusCode, 200);
        await proxy.down();
        const replay = await app.app.inject(request);
        assert.equal(replay.statusCode, 503, `a replay while Redis is away must be refused, got ${replay.statusCode}`);
        assert.equal(replay.json<{ code: string }>().code, 'unavailable');
        assert.match(replay.json<{ detail: string }>().detail, /signed requests/);
        // A fresh signature is refused the same way: nothing can say it is not a replay.
        clock.advance(1);
        const fresh = clock.now().getTime();
        const next = await app.app.inject({ ...request, headers: { authorization: `Bearer ${key}`, 'x-timestamp': String(fresh), 'x-signature': sign(key, fresh, 'GET', ACCOUNT) } });
        assert.equal(next.statusCode, 503, next.body);
        // Unsigned requests do not depend on the replay store.
        assert.equal((await app.app.inject({ method: 'GET', url: ACCOUNT, headers: { authorization: `Bearer ${key}` } })).statusCode, 200);
        await proxy.up();
        await app.app.inject({ method: 'GET', url: '/readyz' });
        // Back: the signature accepted before the outage is still a replay.
        let again = await app.app.inject(request);
        for (let i = 0; again.statusCode === 503 && i < 100; i += 1) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          again = await app.app.inject(request);
        }
        assertRefused(again, 'replayed request');
      } finally {
        await app.close();
        await proxy.down();
      }
    });

    it('once per id across two stores on one Redis, expiring by itself', async () => {
      const url = withKeyPrefix(REDIS_URL, uniquePrefix());
      const log = { warn: () => undefined };
      const one = new RedisSignatureNonces({ url }, clock, log);
      const two = new RedisSignatureNonces({ url }, clock, log);
      try {
        await Promise.all([one.connected(2000), two.connected(2000)]);
        const until = new Date(clock.now().getTime() + 200);
        const claims = await Promise.all([one.claim('k:1', until), two.claim('k:1', until)]);
        assert.deepEqual(claims.sort(), [false, true]);
        await new Promise((resolve) => setTimeout(resolve, 400));
        assert.equal(await two.claim('k:1', new Date(clock.now().getTime() + 200)), true);
      } finally {
        await one.close();
        await two.close();
      }
    });

    it('fails closed when Redis does not answer: the claim is refused with unavailable, once logged', async () => {
      const warnings: string[] = [];
      const nonces = new RedisSignatureNonces({ url: 'redis://127.0.0.1:1' }, clock, { warn: (_fields: object, message: string) => warnings.push(message) });
      try {
        const until = new Date(clock.now().getTime() + 1000);
        for (const id of ['k:9', 'k:9', 'k:10']) {
          await assert.rejects(nonces.claim(id, until), (error: unknown) => error instanceof ApiError && error.code === 'unavailable');
        }
        assert.deepEqual(warnings, ['signature nonces: Redis unavailable, signed requests refused (fail closed)']);
      } finally {
        await nonces.close();
      }
    });

    it('with replicas required, a claim no replica acknowledged is refused and taken back', async () => {
      // The suite's Redis has no replica: WAIT 1 answers 0 within the budget.
      const url = withKeyPrefix(REDIS_URL, uniquePrefix());
      const nonces = new RedisSignatureNonces({ url }, clock, { warn: () => undefined }, { replicas: 1, timeoutMs: 300 });
      const plain = new RedisSignatureNonces({ url }, clock, { warn: () => undefined });
      try {
        await Promise.all([nonces.connected(2000), plain.connected(2000)]);
        const until = new Date(clock.now().getTime() + 5000);
        await assert.rejects(nonces.claim('k:w', until), (error: unknown) => error instanceof ApiError && error.code === 'unavailable');
        // Taken back (the DEL is sent without waiting): a retry of the same request is not a replay.
        let first = await plain.claim('k:w', until);
        for (let i = 0; !first && i < 50; i += 1) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          first = await plain.claim('k:w', until);
        }
        assert.equal(first, true);
        assert.equal(await plain.claim('k:w', until), false);
      } finally {
        await nonces.close();
        await plain.close();
      }
    });
  });
});
