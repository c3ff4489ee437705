import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { sendJsonText } from '../src/plugins/json-reply.js';
import { buildTestApp } from './helpers/test-app.js';

/**
 * Every test app checks, when it closes, each response it sent against the OpenAPI document it
 * serves (test/helpers/response-recorder.ts). These show the check bites: a body the direct
 * writer wrote against its schema, an undocumented status and an undocumented content type
 * each fail `close()`, naming route, status and what is wrong.
 */
describe('responses against the served OpenAPI document', () => {
  it('a body that breaks its schema, an undocumented status and content type fail close()', async () => {
    const Counted = Type.Object({ n: Type.Integer() }, { additionalProperties: false });
    const t = await buildTestApp({
      env: { WORKER: 'off' },
      configure(app) {
        // Written directly, as toJson and orderJson write: Fastify's serializer never sees it.
        app.get('/test/wrong-body', { schema: { response: { 200: Counted } } }, async (_request, reply) =>
          sendJsonText(reply, '{"n":"one","extra":true}'),
        );
        app.get('/test/undocumented-status', { schema: { response: { 200: Counted } } }, async (_request, reply) =>
          sendJsonText(reply, '{"detail":"not in the document","code":"conflict"}', 409),
        );
        app.get('/test/wrong-type', { schema: { response: { 200: Counted } } }, async (_request, reply) =>
          (reply as FastifyReply).type('text/plain').send('1'),
        );
        app.get('/test/fine', { schema: { response: { 200: Counted } } }, async () => ({ n: 1 }));
        // An operator route is held to the operator document (GET /admin/v1/openapi.json).
        app.get('/admin/v1/test/wrong-body', { schema: { response: { 200: Counted } } }, async (_request, reply) =>
          sendJsonText(reply, '{"n":1.5}'),
        );
        // No response schema: a test's own route that documents nothing is not checked.
        app.get('/test/undocumented-route', async (_request, reply) => reply.code(418).send('teapot'));
      },
    });
    for (const url of ['/test/wrong-body', '/test/undocumented-status', '/test/wrong-type', '/test/fine', '/test/undocumented-route', '/no/such/route', '/admin/v1/test/wrong-body']) {
      await t.app.inject({ method: 'GET', url });
    }
    await assert.rejects(t.close(), (error: Error) => {
      const lines = error.message.split('\n');
      assert.match(lines[0] ?? '', /^4 response\(s\) do not match the served OpenAPI documents/);
      assert.ok(
        lines.some((line) => /GET \/admin\/v1\/test\/wrong-body → 200 application\/json: does not match #\/paths\/~1admin~1v1~1test~1wrong-body\/.*must be integer/.test(line)),
        error.message,
      );
      assert.ok(
        lines.some((line) => /GET \/test\/wrong-body → 200 application\/json: does not match #\/paths\/.*body\/n must be integer/.test(line)),
        error.message,
      );
      assert.ok(lines.some((line) => /must NOT have additional properties/.test(line)), error.message);
      assert.ok(
        lines.some((line) => /GET \/test\/undocumented-status → 409 application\/json: status 409 is not documented \(documented: 200\)/.test(line)),
        error.message,
      );
      assert.ok(
        lines.some((line) => /GET \/test\/wrong-type → 200 text\/plain: content type text\/plain is not documented for 200 \(documented: application\/json\)/.test(line)),
        error.message,
      );
      assert.ok(!error.message.includes('/test/fine') && !error.message.includes('undocumented-route'), error.message);
      // The 404 of a request no route took is the Error envelope: it matches.
      assert.ok(!error.message.includes('(no route)'), error.message);
      return true;
    });
  });

  it('the partner API as used matches: orders, rates, errors, 404', async () => {
    const t = await buildTestApp({ env: { WORKER: 'off', PRICE_POLL_SECONDS: '3600' } });
    try {
      const partner = await t.createPartner();
      const headers = { authorization: `Bearer ${partner.apiKey}` };
      const created = await t.app.inject({
        method: 'POST',
        url: '/api/v1/partner/orders',
        headers,
        payload: {
          coin_from: 'BTC',
          network_from: 'BTC',
          coin_to: 'ETH',
          network_to: 'ETH',
          amount_from: 0.1,
          rate_type: 'float',
          recipient_address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
        },
      });
      assert.equal(created.statusCode, 201, created.body);
      const { id } = created.json<{ id: string }>();
      assert.equal((await t.app.inject({ method: 'GET', url: `/api/v1/partner/orders/${id}`, headers })).statusCode, 200);
      assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/partner/orders/nope', headers })).statusCode, 404);
      assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/currencies' })).statusCode, 200);
      assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/partner/rates?coin_from=BTC&coin_to=ETH' })).statusCode, 200);
      assert.equal((await t.app.inject({ method: 'GET', url: `/admin/v1/orders/${id}` })).statusCode, 401);
      assert.ok(t.responses.size >= 7);
      assert.deepEqual(
        t.responses.mismatches({
          partner: (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json(),
          operator: (await t.admin('GET', '/admin/v1/openapi.json')).json(),
        }),
        [],
      );
    } finally {
      await t.close();
    }
  });
});
