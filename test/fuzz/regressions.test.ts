/**
 * What the fuzzers found, pinned as plain tests (each was a 5xx, a non-JSON error or an
 * undocumented status before its fix).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

const ETH_ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';

function assertError(res: LightMyRequestResponse, status: number, code: string): void {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const body = res.json<{ detail: unknown; code: unknown }>();
  assert.equal(typeof body.detail, 'string');
  assert.equal(body.code, code);
}

describe('fuzz findings', () => {
  let t: TestApp;
  let apiKey: string;
  let orderId: string;
  let currencyId: string;
  before(async () => {
    t = await buildTestApp({ env: { WORKER: 'off' } });
    ({ apiKey } = await t.createPartner());
    const order = await t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { authorization: `Bearer ${apiKey}` },
      payload: { coin_from: 'BTC', network_from: 'BTC', coin_to: 'ETH', network_to: 'ETH', amount_from: 0.01, rate_type: 'float', recipient_address: ETH_ADDRESS },
    });
    orderId = order.json<{ id: string }>().id;
    currencyId = (await t.admin('GET', '/admin/v1/currencies')).json<Array<{ id: string }>>()[0]?.id ?? '';
  });
  after(() => t.close());

  it('an Origin that is no web origin (a NUL) on a client-key route is judged without the database (was a 500 on PostgreSQL)', async () => {
    for (const method of ['GET', 'HEAD'] as const) {
      const res = await t.app.inject({ method, url: `/api/v1/partner/orders/${orderId}?x=%00`, headers: { authorization: 'BEARER  not-a-key ', origin: '\u0000' } });
      assert.equal(res.statusCode, 401, res.body);
      assert.equal(res.headers['access-control-allow-origin'], undefined);
    }
    const preflight = await t.app.inject({ method: 'OPTIONS', url: `/api/v1/partner/orders/${orderId}`, headers: { origin: '\u0000', 'access-control-request-method': 'GET' } });
    assert.equal(preflight.statusCode, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], undefined);
  });

  it('a path that is not valid URL encoding is 404 {detail} (was Fastify 400 without detail)', async () => {
    for (const url of ['/api/v1/partner/orders/%E0%A4%A', '/admin/v1/partners/%ZZ', '/static/icons/%', '/docs/%C0%AF%']) {
      assertError(await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${apiKey}` } }), 404, 'not_found');
    }
  });

  it('a path parameter over 200 characters is 404 {detail} (was 414 without detail)', async () => {
    assertError(await t.app.inject({ method: 'GET', url: `/api/v1/partner/orders/${'a'.repeat(300)}`, headers: { authorization: `Bearer ${apiKey}` } }), 404, 'not_found');
    assertError(await t.admin('PATCH', `/admin/v1/partners/${'1'.repeat(201)}`, { status: 'active' }), 404, 'not_found');
  });

  it('an order id longer than 64 characters is 404, as any unknown order (was an undocumented 400)', async () => {
    assertError(await t.app.inject({ method: 'GET', url: `/api/v1/partner/orders/${'9'.repeat(150)}`, headers: { authorization: `Bearer ${apiKey}` } }), 404, 'not_found');
  });

  it('no route: 404 whatever the body (was 400 bad JSON, 415 content type, 413 size)', async () => {
    const cases: Array<{ headers?: Record<string, string>; payload: string }> = [
      { headers: { 'content-type': 'application/json' }, payload: '{' },
      { headers: { 'content-type': 'text/plain' }, payload: 'hello' },
      { headers: { 'content-type': 'application/json' }, payload: `{"a":"${'x'.repeat(70_000)}"}` },
    ];
    for (const { headers, payload } of cases) {
      for (const [method, url] of [['PUT', '/api/v1/partner/account'], ['PATCH', '/healthz'], ['POST', '/nowhere']] as const) {
        assertError(await t.app.inject({ method, url, headers, payload }), 404, 'not_found');
      }
    }
  });

  it('huge offsets are 400 (were a failed query: 500)', async () => {
    assertError(await t.admin('GET', '/admin/v1/partners?offset=5419106200822226977883793017572781748981'), 400, 'bad_request');
    assertError(await t.admin('GET', '/admin/v1/orders?offset=99999999999999999999'), 400, 'bad_request');
    assert.equal((await t.admin('GET', '/admin/v1/orders?offset=2147483647')).statusCode, 200);
  });

  it('order filters at times PostgreSQL or Date cannot hold are 400 (were 500)', async () => {
    for (const time of ['0000-01-01T00:00:00Z', '0001-01-01T00:00:00%2B01:00', '9999-12-31T23:59:60Z']) {
      assertError(await t.admin('GET', `/admin/v1/orders?created_from=${time}`), 400, 'bad_request');
      assertError(await t.admin('GET', `/admin/v1/orders?created_to=${time}`), 400, 'bad_request');
      // The partner's list too (the fuzzer found the leap second there: a 500 on PostgreSQL).
      for (const field of ['created_after', 'created_before']) {
        assertError(await t.app.inject({ method: 'GET', url: `/api/v1/partner/orders?${field}=${time}`, headers: { authorization: `Bearer ${apiKey}` } }), 400, 'bad_request');
      }
    }
    assert.equal((await t.admin('GET', '/admin/v1/orders?created_from=0001-01-01T00:00:00Z')).statusCode, 200);
  });

  it('amounts and prices that do not fit numeric(38, 18) are 400 and change nothing (were 500)', async () => {
    const before = (await t.admin('GET', '/admin/v1/currencies')).body;
    assertError(await t.admin('POST', `/admin/v1/simulator/orders/${orderId}/deposit`, { amount: 1e25 }), 400, 'bad_request');
    assertError(await t.admin('POST', `/admin/v1/simulator/orders/${orderId}/deposit`, { amount: 1e-20 }), 400, 'bad_request');
    assertError(await t.admin('PUT', '/admin/v1/prices/BTC', { price_usd: 1e25 }), 400, 'bad_request');
    assertError(await t.admin('PATCH', `/admin/v1/currencies/${currencyId}`, { max_amount: 1e21 }), 400, 'bad_request');
    assertError(await t.admin('PATCH', `/admin/v1/currencies/${currencyId}`, { payout_fee: 1e25 }), 400, 'bad_request');
    assert.equal((await t.admin('GET', '/admin/v1/currencies')).body, before);
    const deposits = await t.db.handle.db.selectFrom('simulated_deposits').select('order_id').execute();
    assert.deepEqual(deposits, []);
    // The largest values that fit are still taken.
    assert.equal((await t.admin('PUT', '/admin/v1/prices/BTC', { price_usd: '99999999999999999999.5' })).statusCode, 200);
  });

  it('numbers however extreme are 400 or 422 (an exponent past decimal.js range was 500)', async () => {
    const order = (amount: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/partner/orders',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        payload: `{"coin_from":"BTC","network_from":"BTC","coin_to":"ETH","network_to":"ETH","amount_from":${amount},"rate_type":"float","recipient_address":"${ETH_ADDRESS}"}`,
      });
    // Overflowing decimal.js's exponent (±9e15): Infinity there, so refused as out of range.
    for (const amount of ['1e99999999999999999999', '1E+99999999999999999999999', '5e9000000000000001']) {
      assertError(await order(amount), 400, 'bad_request');
    }
    // Zero, negative zero, values that round to 0 as a float, and negative overflow: not > 0.
    for (const amount of ['-0', '0e0', '-0.0', '1e-400', '1e-99999999999999999999', '-1e99999999999999999999']) {
      assertError(await order(amount), 400, 'bad_request');
    }
    // Finer than the coin's decimals (denormals, long fractions): 400.
    for (const amount of ['4.9e-324', `0.${'0'.repeat(5000)}1`]) assertError(await order(amount), 400, 'bad_request');
    // Finite but far past the limits (a float overflows on some, decimal.js holds them): 422.
    for (const amount of ['1e400', '1.7976931348623157e309', '9'.repeat(5000)]) {
      assertError(await order(amount), 422, 'amount_out_of_range');
    }
    for (const amount of ['1e99999999999999999999', '-0', `1${'0'.repeat(60)}`, '4.9e-324', '0.0000000000000000000001']) {
      const res = await t.app.inject({ method: 'GET', url: `/api/v1/partner/rates?coin_from=BTC&coin_to=ETH&amount=${amount}` });
      assertError(res, 400, 'bad_request');
    }
    const rows = await t.db.handle.db.selectFrom('orders').select('id').execute();
    assert.equal(rows.length, 1);
  });

  it('text PostgreSQL cannot store (NUL, unpaired surrogates) is 400 (was 500)', async () => {
    for (const name of ['a\u0000b', 'x\ud800', '\udfff']) {
      assertError(await t.admin('POST', '/admin/v1/partners', { name }), 400, 'bad_request');
    }
    for (const reason of ['x\u0000y', '\ud800']) {
      assertError(await t.admin('POST', `/admin/v1/orders/${orderId}/fail`, { reason }), 400, 'bad_request');
    }
    // Any other Unicode, and line breaks in a reason, are fine.
    assert.equal((await t.admin('POST', '/admin/v1/partners', { name: 'Ünïcødé 💩' })).statusCode, 201);
    assert.equal((await t.admin('POST', `/admin/v1/orders/${orderId}/fail`, { reason: 'line 1\nline 2 💩' })).statusCode, 200);
  });

  it('a cabinet link is never built on a Host header that is no origin (the 10,000-case fuzz made http:///cabinet/…)', async () => {
    const partner = await t.createPartner();
    const invite = (host: string) =>
      t.app.inject({ method: 'POST', url: `/admin/v1/partners/${partner.id}/invitations`, headers: { authorization: `Bearer ${t.adminToken}`, host }, payload: { email: 'someone@partner.example' } });
    for (const host of [':80', ' ', 'user@evil.example', 'a b', 'evil.example/path']) assertError(await invite(host), 400, 'bad_request');
    const made = await invite('Exchange.Example:8443');
    assert.equal(made.statusCode, 201, made.body);
    assert.match(made.json<{ url: string }>().url, /^http:\/\/exchange\.example:8443\/cabinet\/invitation\/[A-Za-z0-9_-]+$/);
  });

  it('the operator OpenAPI document lists the 400 that DELETE /keys and drop-deposit answer', async () => {
    const paths = (await t.admin('GET', '/admin/v1/openapi.json')).json<{
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    }>().paths;
    assert.ok('400' in (paths['/admin/v1/keys/{key_id}']?.delete?.responses ?? {}));
    assert.ok('400' in (paths['/admin/v1/simulator/orders/{id}/drop-deposit']?.post?.responses ?? {}));
    // ...because they do answer it: a body that is not JSON, an id that is not a UUID.
    assertError(
      await t.app.inject({ method: 'DELETE', url: '/admin/v1/keys/pk_00000000000000000000', headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json' }, payload: 'NaN' }),
      400,
      'invalid_json',
    );
    assertError(await t.admin('POST', '/admin/v1/simulator/orders/xx/drop-deposit'), 400, 'bad_request');
  });

  it('GET /admin/v1/audit with a leap second (23:59:60) or year 0000 (valid date-times Date or PostgreSQL cannot hold) is 400 (was 500)', async () => {
    assertError(await t.admin('GET', `/admin/v1/audit?to=${encodeURIComponent('9999-12-31T23:59:60Z')}`), 400, 'bad_request');
    assertError(await t.admin('GET', `/admin/v1/audit?from=${encodeURIComponent('2026-06-30T23:59:60Z')}`), 400, 'bad_request');
    // Year 0000 in UTC (PostgreSQL has none): the fuzzer's next find on the same route.
    assertError(await t.admin('GET', `/admin/v1/audit?from=${encodeURIComponent('0001-01-01T00:00:00+01:00')}`), 400, 'bad_request');
  });

  it('a body nested thousands deep is 400 invalid_json and never reaches the audit log, whose list then answered 500 (stack overflow writing it)', async () => {
    const createPartner = (payload: string) =>
      t.operator({ method: 'POST', url: '/admin/v1/partners', headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json' }, payload });
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    for (const payload of [deep, `{"name":${deep}}`, `{"a":${'{"a":'.repeat(33)}1${'}'.repeat(33)}}`]) {
      assertError(await createPartner(payload), 400, 'invalid_json');
    }
    // Brackets inside strings are text, not nesting; 32 levels are still JSON (the schema judges them).
    const inString = await createPartner(JSON.stringify({ name: `${'['.repeat(60)}\\"{` }));
    assert.equal(inString.statusCode, 201, inString.body);
    assertError(await createPartner(`{"name":"x","extra":${'['.repeat(31)}${']'.repeat(31)}}`), 400, 'bad_request');
    const audit = await t.admin('GET', '/admin/v1/audit?limit=1000');
    assert.equal(audit.statusCode, 200, audit.body);
  });
});
