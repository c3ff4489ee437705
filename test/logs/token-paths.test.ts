/**
 * A one-time token in a path is a credential until used (issue 26.11): no log line holds it,
 * whichever route (or none: a 404) the request reaches, however the path is spelled.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { redactUrl } from '../../src/logger.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

describe('token-bearing paths are redacted in the logs', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: { WORKER: 'off', LOG_LEVEL: 'info', LOG_REQUESTS: 'true' } });
  });
  after(() => t.close());

  it('an invitation or reset token never reaches a log line, on a 404 or on its own route', async () => {
    const { id } = await t.createPartner({ name: 'Logged' });
    const invited = await t.admin('POST', `/admin/v1/partners/${id}/invitations`, { email: 'logged@tokens.example' });
    assert.equal(invited.statusCode, 201, invited.body);
    const { url } = invited.json<{ url: string }>();
    const token = url.slice(url.lastIndexOf('/') + 1);
    const made = `${'A'.repeat(20)}_${'b'.repeat(22)}`;
    const requests: Array<{ method: 'GET' | 'PUT' | 'POST' | 'DELETE'; url: string; status: number }> = [
      { method: 'GET', url: `/cabinet/invitation/${token}/more`, status: 404 },
      { method: 'PUT', url: `/cabinet/invitation/${token}`, status: 404 },
      { method: 'DELETE', url: `/cabinet/invitation/${token}?again=${token}`, status: 404 },
      { method: 'GET', url: `/cabinet/%69nvitation/${token}`, status: 404 },
      { method: 'GET', url: `/CABINET/INVITATION/${token}`, status: 404 },
      { method: 'GET', url: `/cabinet/invitation/${made}x`, status: 404 },
      { method: 'GET', url: `/cabinet/password-reset/${made}/x`, status: 404 },
      { method: 'GET', url: `/cabinet/password-reset/${made}`, status: 404 },
      { method: 'GET', url: `/elsewhere/${made}`, status: 404 },
      { method: 'GET', url: `/cabinet/invitation/${token}`, status: 200 },
    ];
    for (const request of requests) {
      const res = await t.app.inject({ method: request.method, url: request.url });
      // Some spellings reach the route (the router decodes the path); the rest are 404s.
      assert.ok(res.statusCode === request.status || res.statusCode === 200, `${request.method} ${request.url}: ${res.statusCode}`);
    }
    const incoming = t.logs.filter((line) => line.includes('"incoming request"'));
    assert.ok(incoming.length >= requests.length, `expected request lines, got ${incoming.length}`);
    for (const secret of [token, made]) {
      const line = t.logs.findIndex((text) => text.includes(secret));
      assert.ok(line < 0, `log line ${line} holds a token`);
    }
    assert.ok(t.logs.some((line) => line.includes('/cabinet/invitation/[redacted]')));
    assert.ok(t.logs.some((line) => line.includes('/cabinet/password-reset/[redacted]')));
  });

  it('redactUrl keeps what is not a token', () => {
    assert.equal(redactUrl('/api/v1/partner/orders/9b2f6f7e-8d40-4c53-9a8e-2f1b3c4d5e6f?limit=5'), '/api/v1/partner/orders/9b2f6f7e-8d40-4c53-9a8e-2f1b3c4d5e6f?limit=5');
    assert.equal(redactUrl('/cabinet/orders?search=EX-ABC123'), '/cabinet/orders?search=EX-ABC123');
    assert.equal(redactUrl('/cabinet/invitation/abc'), '/cabinet/invitation/[redacted]');
    assert.equal(redactUrl('/cabinet/password-reset/abc/def?x=1'), '/cabinet/password-reset/[redacted]');
    assert.equal(redactUrl('/Console/Invitation/abc'), '/console/invitation/[redacted]');
  });
});
