import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { closeOperator, listenOperator } from '../../src/operator-listener.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { assertErrorItems } from '../helpers/error-items.js';

/**
 * ADMIN_PORT (issue 12): the operator API, its OpenAPI document and /metrics answer on their own
 * listener only; the public port answers 404 for them exactly as for a path that does not exist,
 * and the operator listener serves nothing of the partner surface.
 */
describe('ADMIN_PORT: the operator surface on a listener of its own', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: { WORKER: 'off', ADMIN_PORT: '0' } });
  });
  after(() => t.close());

  const operatorPaths = ['/admin/v1/partners', '/admin/v1/health', '/admin/v1/openapi.json', '/metrics', '/admin/v1/nope'];

  it('the public port: every operator path is the 404 of an unknown path, token or not', async () => {
    const unknown = await t.app.inject({ method: 'GET', url: '/no-such-path' });
    assert.equal(unknown.statusCode, 404);
    for (const url of operatorPaths) {
      for (const headers of [{}, { authorization: `Bearer ${t.adminToken}` }]) {
        const res = await t.app.inject({ method: 'GET', url, headers });
        assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
        assert.deepEqual(Object.keys(res.json<object>()).sort(), ['code', 'detail', 'errors']);
        assertErrorItems(res.json());
        assert.equal(res.json<{ code: string }>().code, 'not_found');
      }
    }
    assert.equal((await t.app.inject({ method: 'POST', url: '/admin/v1/partners', headers: { authorization: `Bearer ${t.adminToken}` }, payload: { name: 'x' } })).statusCode, 404);
    // The partner surface is all there.
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/currencies' })).statusCode, 200);
    assert.equal((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
    const doc = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    assert.equal(doc.statusCode, 200);
    assert.ok(!doc.body.includes('/admin/'));
  });

  it('the operator listener: the operator API, its document and /metrics; nothing of the partner surface', async () => {
    const partner = await t.createPartner();
    assert.equal((await t.admin('GET', `/admin/v1/partners/${partner.id}`)).statusCode, 200);
    assert.equal((await t.admin('GET', '/admin/v1/health')).statusCode, 200);
    assert.equal((await t.admin('GET', '/admin/v1/openapi.json')).statusCode, 200);
    assert.equal((await t.operator({ method: 'GET', url: '/admin/v1/partners' })).statusCode, 401, 'still behind the admin token');
    assert.equal((await t.operator({ method: 'GET', url: '/metrics' })).statusCode, 200);
    for (const url of ['/api/v1/currencies', '/api/v1/partner/account', '/docs', '/api/v1/openapi.json', '/healthz']) {
      const res = await t.operator({ method: 'GET', url, headers: { authorization: `Bearer ${partner.apiKey}` } });
      assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
    }
  });

  it('the operator console is served on the operator listener only', async () => {
    const signIn = await t.operator({ method: 'GET', url: '/console/login' });
    assert.equal(signIn.statusCode, 200);
    assert.match(signIn.body, /Operator console/);
    assert.equal((await t.operator({ method: 'GET', url: '/console' })).headers.location, '/console/login');
    for (const url of ['/console', '/console/login', '/console/nope']) {
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 404, url);
      assert.equal(res.json<{ code: string }>().code, 'not_found', `${url}: the plain 404, nothing of a console`);
    }
  });

  it('over real sockets: two listeners, each answering its surface', async () => {
    const listener = t.config.operator.listener;
    assert.ok(listener !== undefined);
    const publicUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const operator = await listenOperator(t.app, listener);
    try {
      assert.notEqual(new URL(publicUrl).port, operator.url.port);
      const auth = { authorization: `Bearer ${t.adminToken}` };
      assert.equal((await fetch(new URL('/admin/v1/health', publicUrl), { headers: auth })).status, 404);
      assert.equal((await fetch(new URL('/metrics', publicUrl))).status, 404);
      assert.equal((await fetch(new URL('/api/v1/currencies', publicUrl))).status, 200);
      assert.equal((await fetch(new URL('/admin/v1/health', operator.url), { headers: auth })).status, 200);
      const metrics = await fetch(new URL('/metrics', operator.url));
      assert.equal(metrics.status, 200);
      assert.match(await metrics.text(), /^# TYPE http_requests_total counter$/m);
      assert.equal((await fetch(new URL('/api/v1/currencies', operator.url))).status, 404);
    } finally {
      await closeOperator(operator.server);
    }
  });

  it('cabinet links are never built from the operator listener: without PUBLIC_URL they are refused (issue 26.11)', async () => {
    const { id } = await t.createPartner({ name: 'Linked' });
    for (const path of ['invitations', 'password-resets']) {
      const res = await t.admin('POST', `/admin/v1/partners/${id}/${path}`, { email: 'linked@admin-port.example' });
      assert.equal(res.statusCode, 409, `${path}: ${res.body}`);
      assert.equal(res.json<{ code: string }>().code, 'conflict');
      assert.match(res.json<{ detail: string }>().detail, /PUBLIC_URL/);
    }
    // Nothing was made: no invitation row for a link nobody received.
    const rows = await t.db.handle.db.selectFrom('cabinet_invitations').select('id').where('email', '=', 'linked@admin-port.example').execute();
    assert.deepEqual(rows, []);
  });
});

describe('ADMIN_PORT with PUBLIC_URL: cabinet links point where partners are', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: { WORKER: 'off', ADMIN_PORT: '0', PUBLIC_URL: 'https://partners.example' } });
  });
  after(() => t.close());

  it('an invitation link is built from PUBLIC_URL, whatever listener the operator used', async () => {
    const { id } = await t.createPartner({ name: 'Linked' });
    const res = await t.operator({
      method: 'POST',
      url: `/admin/v1/partners/${id}/invitations`,
      headers: { authorization: `Bearer ${t.adminToken}`, host: '10.0.0.5:9001' },
      payload: { email: 'linked@public-url.example' },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.match(res.json<{ url: string }>().url, /^https:\/\/partners\.example\/cabinet\/invitation\/[A-Za-z0-9_-]{43}$/);
  });
});
