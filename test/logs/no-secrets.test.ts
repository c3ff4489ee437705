/**
 * Secrets never reach the logs (docs/contract.md §6), at the most verbose level: API keys and their
 * secrets (at creation, on success, on every kind of failure), X-Signature values, the admin
 * token, and credentials riding along on an unexpected error. The harness (test-app.ts) makes
 * the same check when any test app closes; here the failures are provoked on purpose.
 */
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

const secretOf = (apiKey: string) => apiKey.slice(apiKey.indexOf('.') + 1);
const sign = (apiKey: string, body: string) => createHmac('sha256', secretOf(apiKey)).update(body).digest('hex');
const ORDER = JSON.stringify({
  coin_from: 'BTC', network_from: 'BTC', coin_to: 'ETH', network_to: 'ETH',
  amount_from: 0.01, rate_type: 'float', recipient_address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
});

describe('no secrets in logs (LOG_LEVEL=trace)', () => {
  let t: TestApp;
  let partner: { id: string; apiKey: string; keyId: string };
  /** Credentials this file put on the wire or received, checked here by hand as well. */
  const sent: Array<[string, string]> = [];

  before(async () => {
    t = await buildTestApp({
      env: { LOG_LEVEL: 'trace', LOG_REQUESTS: 'true' },
      configure(app) {
        app.get('/test/boom', async () => {
          throw new Error('unexpected failure in a handler');
        });
        // As HTTP clients do: the error carries the request it was about, headers included.
        app.get('/test/boom-with-request', async (request) => {
          throw Object.assign(new Error('upstream call failed'), {
            headers: { ...request.headers },
            config: { headers: { ...request.headers } },
            request: { headers: { ...request.headers } },
          });
        });
      },
    });
    partner = await t.createPartner({ name: 'Log Partner', rate_limit_per_minute: 10_000 });
    sent.push(['API key', partner.apiKey], ['API secret', secretOf(partner.apiKey)], ['admin token', t.adminToken]);
  });

  after(async () => {
    // The check itself: every log line, against every credential of this file.
    assert.ok(t.logs.length > 50, `expected a verbose log, got ${t.logs.length} lines`);
    for (const [label, value] of sent) {
      // ok(), not equal(): a failure must not print the line (and so the secret) itself.
      const line = t.logs.findIndex((text) => text.includes(value));
      assert.ok(line < 0, `log line ${line} holds the ${label}`);
    }
    assert.ok(t.secrets.size >= sent.length);
    await t.close();
  });

  const call = (method: 'GET' | 'POST', url: string, headers: Record<string, string>, payload?: string): Promise<LightMyRequestResponse> =>
    t.app.inject({ method, url, headers: { 'content-type': 'application/json', ...headers }, ...(payload === undefined ? {} : { payload }) });

  it('issuing keys logs neither the key nor its secret', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await t.admin('POST', `/admin/v1/partners/${partner.id}/keys`);
      assert.equal(res.statusCode, 201);
      const { api_key } = res.json<{ api_key: string }>();
      sent.push(['issued API key', api_key], ['issued API secret', secretOf(api_key)]);
    }
  });

  it('successful keyed requests, with and without X-Signature', async () => {
    const signature = sign(partner.apiKey, ORDER);
    sent.push(['signature', signature]);
    assert.equal((await call('GET', '/api/v1/partner/account', { authorization: `Bearer ${partner.apiKey}` })).statusCode, 200);
    assert.equal((await call('GET', '/api/v1/partner/account', { 'x-api-key': partner.apiKey })).statusCode, 200);
    const created = await call('POST', '/api/v1/partner/orders', { authorization: `Bearer ${partner.apiKey}`, 'x-signature': signature }, ORDER);
    assert.equal(created.statusCode, 201, created.body);
  });

  it('401s: wrong secret, unknown key, malformed key, bad signature; 403: suspended partner', async () => {
    const wrongSecret = `${partner.keyId}.${randomBytes(32).toString('base64url')}`;
    const unknown = `pk_${randomBytes(10).toString('hex')}.${randomBytes(32).toString('base64url')}`;
    const malformed = `${randomBytes(24).toString('base64url')}`;
    const badSignature = createHmac('sha256', 'not the secret').update(ORDER).digest('hex');
    sent.push(['wrong secret', wrongSecret], ['unknown key', unknown], ['malformed key', malformed], ['bad signature', badSignature]);
    const attempts: Array<Record<string, string>> = [
      { authorization: `Bearer ${wrongSecret}` },
      { 'x-api-key': unknown },
      { authorization: `Bearer ${malformed}` },
      { authorization: `Bearer ${partner.apiKey}`, 'x-api-key': unknown },
    ];
    for (const headers of attempts) {
      assert.equal((await call('GET', '/api/v1/partner/account', headers)).statusCode, 401);
      assert.equal((await call('GET', '/api/v1/currencies', headers)).statusCode, 401);
    }
    const res = await call('POST', '/api/v1/partner/orders', { authorization: `Bearer ${partner.apiKey}`, 'x-signature': badSignature }, ORDER);
    assert.equal(res.statusCode, 401);

    const suspended = await t.createPartner({ name: 'Suspended' });
    sent.push(['suspended key', suspended.apiKey]);
    await t.admin('PATCH', `/admin/v1/partners/${suspended.id}`, { status: 'suspended' });
    assert.equal((await call('GET', '/api/v1/partner/account', { 'x-api-key': suspended.apiKey })).statusCode, 403);
  });

  it('operator API: the admin token, and wrong tokens that resemble it', async () => {
    const near = `${t.adminToken.slice(0, -2)}xx`;
    sent.push(['near admin token', near]);
    assert.equal((await call('GET', '/admin/v1/partners', { authorization: `Bearer ${t.adminToken}` })).statusCode, 200);
    assert.equal((await call('GET', '/admin/v1/partners', { authorization: `Bearer ${near}` })).statusCode, 401);
    assert.equal((await call('GET', '/admin/v1/partners', { authorization: `Bearer ${partner.apiKey}` })).statusCode, 401);
  });

  it('500s from a handler, with every credential header on the request', async () => {
    const headers = {
      authorization: `Bearer ${partner.apiKey}`,
      'x-api-key': partner.apiKey,
      'x-signature': sign(partner.apiKey, ''),
    };
    sent.push(['signature of an empty body', headers['x-signature']]);
    for (const url of ['/test/boom', '/test/boom-with-request']) {
      const res = await call('GET', url, headers);
      assert.equal(res.statusCode, 500);
      assert.deepEqual(res.json(), { detail: 'internal server error', code: 'internal', errors: [{ code: 'internal', field: null, detail: 'internal server error' }] });
    }
    const admin = await call('GET', '/test/boom-with-request', { authorization: `Bearer ${t.adminToken}` });
    assert.equal(admin.statusCode, 500);
    // The failures were logged (so the check above looks at real error lines).
    assert.ok(t.logs.some((line) => line.includes('upstream call failed')));
    assert.ok(t.logs.some((line) => line.includes('unexpected failure in a handler')));
  });
});

describe('the harness check catches a leak', () => {
  it('close() fails when a log line holds a credential, and names its kind, not its value', async () => {
    const t = await buildTestApp({
      configure(app) {
        app.get('/test/leaky', async (request) => {
          request.log.info(`client sent ${String(request.headers['x-api-key'])}`);
          return { ok: true };
        });
      },
    });
    const partner = await t.createPartner();
    await t.app.inject({ method: 'GET', url: '/test/leaky', headers: { 'x-api-key': partner.apiKey } });
    const found = t.secrets.findIn(t.logs);
    assert.ok(found.length > 0);
    await assert.rejects(t.close(), (error: Error) => {
      assert.match(error.message, /hold a credential/);
      assert.match(error.message, /x-api-key header|issued API key/);
      assert.ok(!error.message.includes(secretOf(partner.apiKey)), 'the failure message must not leak the secret itself');
      return true;
    });
  });
});
