import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { buildTestApp, type TestApp } from './helpers/test-app.js';
import { assertErrorItems } from './helpers/error-items.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Asserts the error envelope: JSON `{detail, code}` (nothing else), the status, and no internals
 * (stack frames, file paths, SQL, framework error codes) anywhere in the body.
 */
function assertError(res: LightMyRequestResponse, status: number, code: string, detail?: string | RegExp): void {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const body = res.json<Record<string, unknown>>();
  assert.deepEqual(Object.keys(body).sort(), ['code', 'detail', 'errors']);
  assertErrorItems(body);
  assert.equal(body.code, code);
  assert.equal(typeof body.detail, 'string');
  assert.ok((body.detail as string).length > 0);
  if (typeof detail === 'string') assert.equal(body.detail, detail);
  else if (detail !== undefined) assert.match(body.detail as string, detail);
  for (const internal of [/\bat \S+ \(/, /\.ts\b/, /\.js:\d+/, /node_modules/, /\/work\//, /\bselect\b/i, /\bFST_/, /stack/i]) {
    assert.doesNotMatch(res.body, internal);
  }
  assert.ok(typeof res.headers['x-request-id'] === 'string' && res.headers['x-request-id'].length > 0, 'x-request-id');
}

describe('error responses', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({
      configure(app) {
        app.get('/test/throws', () => {
          throw new Error('secret internals');
        });
        app.get('/test/rejects', async () => Promise.reject(new TypeError('secret internals in a promise')));
        app.get('/test/sql', async () => {
          await sql`select secret_column from no_such_table`.execute(t.db.handle.db);
          return { unreachable: true };
        });
      },
    });
  });
  after(() => t.close());

  const adminPost = (url: string, payload: string | Buffer, contentType = 'application/json'): Promise<LightMyRequestResponse> =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': contentType },
      payload,
    });

  describe('routing', () => {
    it('an unknown route is 404', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/nope?x=1' });
      assertError(res, 404, 'not_found', 'no route GET /api/v1/nope');
    });

    it('an unknown route outside /api is 404 too', async () => {
      assertError(await t.app.inject({ method: 'GET', url: '/' }), 404, 'not_found');
      assertError(await t.app.inject({ method: 'GET', url: '/admin/v2/x' }), 404, 'not_found');
    });

    it('a known path with the wrong method is 404', async () => {
      const res = await t.app.inject({ method: 'DELETE', url: '/api/v1/currencies' });
      assertError(res, 404, 'not_found', 'no route DELETE /api/v1/currencies');
      const post = await t.app.inject({ method: 'POST', url: '/api/v1/currencies', payload: {} });
      assertError(post, 404, 'not_found');
    });
  });

  describe('request bodies', () => {
    it('an unknown field in an admin POST body is 400 naming it', async () => {
      const res = await adminPost('/admin/v1/partners', JSON.stringify({ name: 'Acme', is_admin: true }));
      assertError(res, 400, 'bad_request', 'body has unknown field "is_admin"');
    });

    it('a field of the wrong type is 400 (no coercion of JSON bodies)', async () => {
      assertError(await adminPost('/admin/v1/partners', JSON.stringify({ name: 123 })), 400, 'bad_request', /^body\/name /);
      assertError(
        await adminPost('/admin/v1/partners', JSON.stringify({ name: 'Acme', markup_bps: '10' })),
        400,
        'bad_request',
        /^body\/markup_bps /,
      );
    });

    it('a missing required field is 400 naming it', async () => {
      assertError(await adminPost('/admin/v1/partners', '{}'), 400, 'bad_request', 'body is missing required field "name"');
    });

    it('malformed JSON is 400 invalid_json', async () => {
      for (const payload of ['{"name": "Acme"', '{name: "Acme"}', 'not json', '{"name":"a"} trailing']) {
        assertError(await adminPost('/admin/v1/partners', payload), 400, 'invalid_json', 'request body is not valid JSON');
      }
    });

    it('an empty JSON body is 400', async () => {
      assertError(await adminPost('/admin/v1/partners', ''), 400, 'invalid_json', 'request body is not valid JSON');
    });

    it('a prototype-poisoning body is refused', async () => {
      const res = await adminPost('/admin/v1/partners', '{"name":"Acme","__proto__":{"x":1}}');
      assertError(res, 400, 'invalid_json');
    });

    it('a body over 64 KiB is 413', async () => {
      const big = JSON.stringify({ name: 'x'.repeat(64 * 1024) });
      assertError(await adminPost('/admin/v1/partners', big), 413, 'payload_too_large');
    });

    it('a body of exactly 64 KiB is parsed (then validated)', async () => {
      const prefix = '{"name":"';
      const suffix = '"}';
      const exact = prefix + 'x'.repeat(64 * 1024 - prefix.length - suffix.length) + suffix;
      assert.equal(Buffer.byteLength(exact), 64 * 1024);
      // Parsed fine; the name is longer than 100 characters, so validation answers.
      assertError(await adminPost('/admin/v1/partners', exact), 400, 'bad_request', /^body\/name /);
    });

    it('a body that is not JSON is 415', async () => {
      assertError(await adminPost('/admin/v1/partners', 'name=Acme', 'text/plain'), 415, 'unsupported_media_type');
      assertError(
        await adminPost('/admin/v1/partners', 'name=Acme', 'application/x-www-form-urlencoded'),
        415,
        'unsupported_media_type',
      );
      assertError(
        await adminPost('/admin/v1/partners', '--b\r\n\r\n--b--', 'multipart/form-data; boundary=b'),
        415,
        'unsupported_media_type',
      );
    });

    it('a JSON content type with a charset is accepted', async () => {
      const res = await adminPost('/admin/v1/partners', JSON.stringify({ name: 'Charset' }), 'application/json; charset=utf-8');
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json<{ name: string }>().name, 'Charset');
    });
  });

  describe('unexpected failures', () => {
    it('a route that throws is 500 "internal server error" without the message', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/test/throws' });
      assertError(res, 500, 'internal', 'internal server error');
      assert.deepEqual(res.json(), {
        detail: 'internal server error',
        code: 'internal',
        errors: [{ code: 'internal', field: null, detail: 'internal server error' }],
      });
      assert.ok(!res.body.includes('secret internals'));
      // The operator still sees what happened, under the request's id.
      const id = String(res.headers['x-request-id']);
      const logged = t.logs.find((line) => line.includes('secret internals'));
      assert.ok(logged !== undefined, 'the error is logged');
      assert.ok(logged.includes(id), 'the log line carries the request id');
    });

    it('a rejected promise is 500 the same way', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/test/rejects' });
      assertError(res, 500, 'internal', 'internal server error');
      assert.ok(!res.body.includes('secret internals'));
    });

    it('a database error is 500 without SQL, table or column names', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/test/sql' });
      assertError(res, 500, 'internal', 'internal server error');
      for (const word of ['no_such_table', 'secret_column', 'relation', 'does not exist']) {
        assert.ok(!res.body.includes(word), word);
      }
    });
  });

  describe('x-request-id', () => {
    it('is on every response, success and error alike', async () => {
      const requests: InjectOptions[] = [
        { method: 'GET', url: '/api/v1/currencies' },
        { method: 'GET', url: '/healthz' },
        { method: 'GET', url: '/nope' },
        { method: 'GET', url: '/test/throws' },
        { method: 'GET', url: '/api/v1/partner/account' },
        { method: 'GET', url: '/admin/v1/partners' },
        { method: 'POST', url: '/admin/v1/partners', headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'text/plain' }, payload: 'x' },
      ];
      const seen = new Set<string>();
      for (const request of requests) {
        const res = await t.app.inject(request);
        const id = res.headers['x-request-id'];
        assert.ok(typeof id === 'string', `${String(request.method)} ${JSON.stringify(request.url)} has x-request-id`);
        assert.match(id, UUID);
        seen.add(id);
      }
      assert.equal(seen.size, requests.length, 'each request gets its own id');
    });

    it('a sane client id is echoed back', async () => {
      for (const sent of ['abc-123', 'trace:42.a_b', 'A'.repeat(64)]) {
        const ok = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': sent } });
        assert.equal(ok.headers['x-request-id'], sent);
        const error = await t.app.inject({ method: 'GET', url: '/nope', headers: { 'x-request-id': sent } });
        assert.equal(error.statusCode, 404);
        assert.equal(error.headers['x-request-id'], sent);
      }
    });

    it('a junk client id is replaced by a fresh one', async () => {
      for (const sent of ['has space', 'A'.repeat(65), '<script>', 'a\tb', 'ü']) {
        const res = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': sent } });
        assert.equal(res.statusCode, 200);
        const id = res.headers['x-request-id'];
        assert.notEqual(id, sent);
        assert.match(String(id), UUID);
      }
    });
  });
});
