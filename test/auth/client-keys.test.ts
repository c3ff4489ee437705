import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { cabinetPerson } from '../helpers/cabinet-client.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * Client keys (docs/contract.md §10.9, issue 27.6): `pk_client_…` keys made to ship inside an app. They
 * reach the public routes, order creation, and the orders they created (and their QR codes);
 * everything else is 403 `scope`. The CORS answers of those routes: public ones to any origin,
 * client-key ones to the partner's cors_origins, every other route none.
 */

const ETH_ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const ORDER = { coin_from: 'BTC', network_from: 'BTC', amount_from: 0.01, coin_to: 'ETH', network_to: 'ETH', rate_type: 'float', recipient_address: ETH_ADDRESS };
const WALLET = 'https://wallet.example';
const ELSEWHERE = 'https://evil.example';

interface IssuedKey {
  key_id: string;
  api_key: string;
  sandbox: boolean;
  scope: string;
}

function assertCode(res: LightMyRequestResponse, status: number, code: string): string {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json<{ detail: string; code: string }>();
  assert.equal(body.code, code, res.body);
  assert.equal(typeof body.detail, 'string');
  return body.detail;
}

describe('client keys (pk_client_…)', () => {
  let t: TestApp;
  let partnerId: string;
  let fullKey: string;
  let client: IssuedKey;
  let otherClient: IssuedKey;
  before(async () => {
    t = await buildTestApp({ env: { WORKER: 'off', PRICE_POLL_SECONDS: '3600' } });
    const partner = await t.createPartner({ rate_limit_per_minute: 100_000 });
    partnerId = partner.id;
    fullKey = partner.apiKey;
    const issue = async (body: unknown): Promise<IssuedKey> => {
      const res = await t.admin('POST', `/admin/v1/partners/${partnerId}/keys`, body);
      assert.equal(res.statusCode, 201, res.body);
      return res.json<IssuedKey>();
    };
    client = await issue({ scope: 'client' });
    otherClient = await issue({ scope: 'client' });
    const updated = await t.admin('PATCH', `/admin/v1/partners/${partnerId}`, { cors_origins: [WALLET] });
    assert.equal(updated.statusCode, 200, updated.body);
  });
  after(() => t.close());

  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, key: string, payload?: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({ method, url, headers: { 'x-api-key': key, ...headers }, ...(payload === undefined ? {} : { payload: payload as object }) });

  it('the operator makes them: pk_client_ (pk_client_test_ in sandbox), scope client, listed with their scope', async () => {
    assert.match(client.key_id, /^pk_client_[a-z0-9]{20}$/);
    assert.equal(client.scope, 'client');
    assert.equal(client.sandbox, false);
    const sandbox = await t.admin('POST', `/admin/v1/partners/${partnerId}/keys`, { scope: 'client', sandbox: true });
    assert.equal(sandbox.statusCode, 201, sandbox.body);
    assert.match(sandbox.json<IssuedKey>().key_id, /^pk_client_test_[a-z0-9]{20}$/);
    const full = await t.admin('POST', `/admin/v1/partners/${partnerId}/keys`, {});
    assert.equal(full.json<IssuedKey>().scope, 'full');
    const listed = (await t.admin('GET', `/admin/v1/partners/${partnerId}/keys`)).json<{ key_id: string; scope: string }[]>();
    assert.equal(listed.find((key) => key.key_id === client.key_id)?.scope, 'client');
    assertCode(await t.admin('POST', `/admin/v1/partners/${partnerId}/keys`, { scope: 'server' }), 400, 'bad_request');
  });

  it('reaches currencies, rates, address validation, order creation, its own order and its QR code', async () => {
    assert.equal((await call('GET', '/api/v1/currencies', client.api_key)).statusCode, 200);
    const rates = await call('GET', '/api/v1/partner/rates?coin_from=BTC&network_from=BTC&coin_to=ETH&network_to=ETH&amount=0.01', client.api_key);
    assert.equal(rates.statusCode, 200, rates.body);
    const valid = await call('GET', `/api/v1/partner/addresses/validate?coin=ETH&network=ETH&address=${ETH_ADDRESS}`, client.api_key);
    assert.equal(valid.statusCode, 200, valid.body);
    const created = await call('POST', '/api/v1/partner/orders', client.api_key, ORDER);
    assert.equal(created.statusCode, 201, created.body);
    const order = created.json<{ id: string; short_id: string }>();
    assert.equal((await call('GET', `/api/v1/partner/orders/${order.id}`, client.api_key)).statusCode, 200);
    assert.equal((await call('GET', `/api/v1/partner/orders/${order.id}/qr.svg`, client.api_key)).statusCode, 200);
    // The partner's full key reads it too; the order records the key that made it.
    assert.equal((await call('GET', `/api/v1/partner/orders/${order.id}`, fullKey)).statusCode, 200);
    const stored = await t.db.handle.db.selectFrom('orders').select('created_by_key_id').where('id', '=', order.id).executeTakeFirstOrThrow();
    assert.equal(stored.created_by_key_id, client.key_id);
  });

  it("reads only the orders it created: the full key's and another client key's are 404; a short id is 403 scope", async () => {
    const byFull = (await call('POST', '/api/v1/partner/orders', fullKey, ORDER)).json<{ id: string }>();
    const byOther = (await call('POST', '/api/v1/partner/orders', otherClient.api_key, ORDER)).json<{ id: string; short_id: string }>();
    for (const id of [byFull.id, byOther.id]) {
      assertCode(await call('GET', `/api/v1/partner/orders/${id}`, client.api_key), 404, 'not_found');
      assertCode(await call('GET', `/api/v1/partner/orders/${id}/qr.svg`, client.api_key), 404, 'not_found');
    }
    const detail = assertCode(await call('GET', `/api/v1/partner/orders/${byOther.short_id}`, otherClient.api_key), 403, 'scope');
    assert.match(detail, /UUID/);
  });

  it('an Idempotency-Key replay answers a client key only an order it created', async () => {
    const key = { 'idempotency-key': 'client-replay-1' };
    const first = await call('POST', '/api/v1/partner/orders', fullKey, ORDER, key);
    assert.equal(first.statusCode, 201, first.body);
    assertCode(await call('POST', '/api/v1/partner/orders', client.api_key, ORDER, key), 422, 'unprocessable');
  });

  it('everything else is 403 scope with a detail that says what a client key is for', async () => {
    const created = (await call('POST', '/api/v1/partner/orders', client.api_key, ORDER)).json<{ id: string }>();
    const refused: [method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown][] = [
      ['GET', '/api/v1/partner/orders'],
      ['GET', '/api/v1/partner/account'],
      ['GET', '/api/v1/partner/stats'],
      ['GET', '/api/v1/partner/webhooks'],
      ['POST', '/api/v1/partner/webhooks', { url: 'https://example.com/hook' }],
      ['POST', `/api/v1/partner/orders/${created.id}/cancel`],
      ['PUT', `/api/v1/partner/orders/${created.id}/refund-address`, { refund_address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' }],
      ['POST', `/api/v1/partner/sandbox/orders/${created.id}/deposit`, {}],
    ];
    for (const [method, url, payload] of refused) {
      const detail = assertCode(await call(method, url, client.api_key, payload), 403, 'scope');
      assert.match(detail, /client key/, `${method} ${url}`);
    }
    // The full key still reaches them.
    assert.equal((await call('GET', '/api/v1/partner/orders', fullKey)).statusCode, 200);
  });

  describe('CORS', () => {
    const preflight = (url: string, origin: string, method = 'GET') =>
      t.app.inject({
        method: 'OPTIONS',
        url,
        headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'x-api-key, content-type' },
      });

    it('public routes answer any origin, preflight and request', async () => {
      for (const url of ['/api/v1/currencies', '/api/v1/partner/rates', '/api/v1/partner/addresses/validate']) {
        const res = await preflight(url, ELSEWHERE);
        assert.equal(res.statusCode, 204, url);
        assert.equal(res.headers['access-control-allow-origin'], '*', url);
        assert.match(String(res.headers['access-control-allow-headers']), /X-API-Key/);
        assert.match(String(res.headers['access-control-allow-methods']), /GET/);
      }
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/currencies', headers: { origin: ELSEWHERE } });
      assert.equal(res.headers['access-control-allow-origin'], '*');
    });

    it("client-key routes answer the partner's origins only, to a client key", async () => {
      const allowed = await preflight('/api/v1/partner/orders', WALLET, 'POST');
      assert.equal(allowed.statusCode, 204);
      assert.equal(allowed.headers['access-control-allow-origin'], WALLET);
      assert.match(String(allowed.headers['access-control-allow-methods']), /POST/);
      assert.doesNotMatch(String(allowed.headers['access-control-allow-methods']), /GET/, 'the list of orders is not a client-key route');
      assert.match(String(allowed.headers.vary), /Origin/);
      const foreign = await preflight('/api/v1/partner/orders', ELSEWHERE, 'POST');
      assert.equal(foreign.headers['access-control-allow-origin'], undefined);
      const wrongMethod = await preflight('/api/v1/partner/orders/00000000-0000-4000-8000-000000000000', WALLET, 'DELETE');
      assert.equal(wrongMethod.headers['access-control-allow-origin'], undefined);

      const created = await call('POST', '/api/v1/partner/orders', client.api_key, ORDER, { origin: WALLET });
      assert.equal(created.statusCode, 201, created.body);
      assert.equal(created.headers['access-control-allow-origin'], WALLET);
      const order = created.json<{ id: string }>();
      const read = await call('GET', `/api/v1/partner/orders/${order.id}`, client.api_key, undefined, { origin: WALLET });
      assert.equal(read.headers['access-control-allow-origin'], WALLET);
      assert.match(String(read.headers['access-control-expose-headers']), /Retry-After/);
      const elsewhere = await call('GET', `/api/v1/partner/orders/${order.id}`, client.api_key, undefined, { origin: ELSEWHERE });
      assert.equal(elsewhere.headers['access-control-allow-origin'], undefined);
      // A full key stays on servers: no CORS for it, even from an allowed origin.
      const full = await call('GET', `/api/v1/partner/orders/${order.id}`, fullKey, undefined, { origin: WALLET });
      assert.equal(full.statusCode, 200);
      assert.equal(full.headers['access-control-allow-origin'], undefined);
      // A missing key's 401 is readable by an allowed page, so it can be fixed.
      const anonymous = await t.app.inject({ method: 'GET', url: `/api/v1/partner/orders/${order.id}`, headers: { origin: WALLET } });
      assert.equal(anonymous.statusCode, 401);
      assert.equal(anonymous.headers['access-control-allow-origin'], WALLET);
    });

    it('every other route sends no CORS headers, preflight included', async () => {
      const res = await preflight('/api/v1/partner/webhooks', WALLET, 'GET');
      assert.equal(res.statusCode, 404);
      assert.equal(res.headers['access-control-allow-origin'], undefined);
      const list = await call('GET', '/api/v1/partner/orders', fullKey, undefined, { origin: WALLET });
      assert.equal(list.headers['access-control-allow-origin'], undefined);
      const refused = await call('GET', '/api/v1/partner/orders', client.api_key, undefined, { origin: WALLET });
      assert.equal(refused.statusCode, 403);
      assert.equal(refused.headers['access-control-allow-origin'], undefined);
    });

    it('cors_origins: origins as a browser sends them, at most 20, shown on the partner', async () => {
      for (const bad of ['https://wallet.example/', 'wallet.example', 'https://Wallet.example', 'ftp://wallet.example', 'https://wallet.example/app', '*']) {
        assertCode(await t.admin('PATCH', `/admin/v1/partners/${partnerId}`, { cors_origins: [bad] }), 400, 'bad_request');
      }
      const many = Array.from({ length: 21 }, (_, i) => `https://w${i}.example`);
      assert.equal((await t.admin('PATCH', `/admin/v1/partners/${partnerId}`, { cors_origins: many })).statusCode, 400);
      const ok = await t.admin('PATCH', `/admin/v1/partners/${partnerId}`, { cors_origins: [WALLET, 'http://localhost:5173'] });
      assert.equal(ok.statusCode, 200, ok.body);
      assert.deepEqual(ok.json<{ cors_origins: string[] }>().cors_origins, [WALLET, 'http://localhost:5173']);
    });
  });

  it('the cabinet makes app keys and sets the allowed origins', async () => {
    const { partnerId: own, client: browser } = await cabinetPerson(t, { email: 'apps@example.com', password: 'a long enough password 1' });
    await browser.get('/cabinet/keys');
    assert.match(browser.lastBody, /name="scope" value="client"/);
    const made = await browser.post('/cabinet/keys', { label: 'iOS app', kind: 'live', scope: 'client' });
    assert.equal(made.statusCode, 303, made.body);
    const shown = await browser.get(String(made.headers.location));
    const key = /pk_client_[a-z0-9]{20}\.[A-Za-z0-9_-]{43}/.exec(shown.body)?.[0];
    assert.ok(key !== undefined, 'the new client key is shown once');
    assert.match(shown.body, /app \(client\)/);
    assertCode(await call('GET', '/api/v1/partner/orders', key), 403, 'scope');

    await browser.get('/cabinet/settings');
    // Each form answers 303 to the settings page, which says what became of it (docs/contract.md §9.1).
    const bad = await browser.submit('/cabinet/settings/cors-origins', { cors_origins: 'https://app.example/path' });
    assert.match(bad.body, /role="alert">[^<]*path/);
    const saved = await browser.submit('/cabinet/settings/cors-origins', { cors_origins: 'https://app.example\r\nhttp://localhost:5173\n' });
    assert.match(saved.body, /role="status">Web pages of https:\/\/app.example, http:\/\/localhost:5173 may use your app keys/);
    const partner = (await t.admin('GET', `/admin/v1/partners/${own}`)).json<{ cors_origins: string[] }>();
    assert.deepEqual(partner.cors_origins, ['https://app.example', 'http://localhost:5173']);
    const created = await call('POST', '/api/v1/partner/orders', key, ORDER, { origin: 'https://app.example' });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.headers['access-control-allow-origin'], 'https://app.example');
  });
});
