import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

interface OpenApiDoc {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, { responses?: Record<string, unknown>; security?: unknown[] }>>;
  components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }>; securitySchemes: Record<string, unknown> };
}

describe('OpenAPI document, docs and operations endpoints', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({
      configure(app) {
        // A careless handler that logs whole headers and credential-shaped fields: redaction must hold.
        app.get('/test/log-headers', async (request) => {
          request.log.info({ headers: request.headers }, 'headers seen');
          request.log.info({ body: { api_key: request.headers['x-api-key'], secret: 'shh-not-logged' } }, 'fields seen');
          return { ok: true };
        });
      },
    });
  });
  after(() => t.close());

  describe('OpenAPI', () => {
    let doc: OpenApiDoc;
    before(async () => {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      doc = res.json<OpenApiDoc>();
    });

    it('is a valid OpenAPI 3.1 document', async () => {
      assert.match(doc.openapi, /^3\.1\./);
      assert.equal(doc.info.title, 'Exchange Partner API');
      const validated = (await SwaggerParser.validate(structuredClone(doc) as never)) as unknown as OpenApiDoc;
      assert.match(validated.openapi, /^3\.1\./);
    });

    it('lists the partner endpoints with their response schemas', () => {
      const currencies = doc.paths['/api/v1/currencies']?.get;
      assert.ok(currencies !== undefined, '/api/v1/currencies is documented');
      assert.ok(currencies.responses?.['200'] !== undefined);
      assert.ok(JSON.stringify(currencies.responses['200']).includes('#/components/schemas/Currency'));
      assert.ok(JSON.stringify(currencies.responses['500']).includes('#/components/schemas/Error'));

      const account = doc.paths['/api/v1/partner/account']?.get;
      assert.ok(account !== undefined, '/api/v1/partner/account is documented');
      assert.ok(account.responses?.['401'] !== undefined && account.responses['403'] !== undefined);
      assert.deepEqual(account.security, [{ bearerAuth: [] }, { apiKeyHeader: [] }]);
      assert.ok('bearerAuth' in doc.components.securitySchemes && 'apiKeyHeader' in doc.components.securitySchemes);
    });

    it('documents the Currency and Error schemas as the service writes them', () => {
      const currency = doc.components.schemas.Currency;
      assert.ok(currency?.properties !== undefined);
      assert.deepEqual(
        Object.keys(currency.properties).sort(),
        [
          'chain_id', 'coin', 'contract_address', 'decimals', 'explorer_address_url', 'explorer_tx_url', 'icon_url', 'id',
          'is_active', 'is_deposit_enabled', 'is_memo', 'is_withdraw_enabled', 'max_amount', 'min_amount',
          'min_confirmations', 'name', 'network',
          // v1.2 (docs/contract.md §10.7)
          'address_regex', 'caip19', 'caip2', 'chain', 'confirmations_required', 'memo_name',
        ].sort(),
      );
      const error = doc.components.schemas.Error;
      assert.deepEqual(error?.required, ['detail', 'code', 'errors']);
      // docs/contract.md §10.4: every item of `errors` has a code of the closed list, all listed in the document.
      const item = (error?.properties as { errors?: { items?: { required?: string[]; properties?: { code?: { enum?: string[] } } } } } | undefined)
        ?.errors?.items;
      assert.deepEqual(item?.required, ['code', 'field', 'detail']);
      const codes = item?.properties?.code?.enum ?? [];
      for (const code of [
        'bad_request', 'currency_unsupported', 'network_unsupported', 'pair_unavailable', 'amount_below_min', 'amount_above_max',
        'amount_invalid', 'address_invalid', 'memo_required', 'memo_invalid', 'quote_invalid', 'region_restricted',
        'external_id_conflict', 'scope', 'amount_out_of_range', 'open_orders_limit', 'not_found', 'unauthorized', 'rate_limited',
      ]) {
        assert.ok(codes.includes(code), `item code ${code} is not in the document`);
      }
      // The top-level codes stay v1.1's outcomes; the three new outcomes of v1.2 are among them.
      const topCodes = (error?.properties as { code?: { enum?: string[] } } | undefined)?.code?.enum ?? [];
      for (const code of ['region_restricted', 'external_id_conflict', 'scope', 'amount_out_of_range']) assert.ok(topCodes.includes(code), code);
      assert.ok(!topCodes.includes('amount_invalid'), 'amount_invalid is an item code only');
    });

    it('holds the partner API only: no operator path, schema, tag or security scheme', () => {
      const paths = Object.keys(doc.paths);
      assert.ok(!paths.some((path) => path.startsWith('/admin/') || path === '/metrics'), paths.join(', '));
      assert.ok(!JSON.stringify(doc).includes('/admin/'));
      assert.ok(!Object.keys(doc.components.schemas).some((name) => name.startsWith('Admin')), Object.keys(doc.components.schemas).join(', '));
      assert.ok(!('adminToken' in doc.components.securitySchemes));
    });

    it('the docs page serves the partner document too', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/docs/json' });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), doc);
    });

    it('the operator document is behind the admin token, valid, and holds the operator API and /metrics', async () => {
      assert.equal((await t.app.inject({ method: 'GET', url: '/admin/v1/openapi.json' })).statusCode, 401);
      const res = await t.admin('GET', '/admin/v1/openapi.json');
      assert.equal(res.statusCode, 200);
      const operator = res.json<OpenApiDoc>();
      await SwaggerParser.validate(structuredClone(operator) as never);
      const paths = Object.keys(operator.paths);
      assert.ok(paths.every((path) => path.startsWith('/admin/v1/') || path === '/metrics'), paths.join(', '));
      assert.ok(paths.includes('/metrics') && paths.includes('/admin/v1/health'));
      assert.deepEqual(Object.keys(operator.components.securitySchemes).sort(), ['adminToken', 'metricsToken']);
    });

    it('every operator route requires the admin token', async () => {
      const operator = (await t.admin('GET', '/admin/v1/openapi.json')).json<OpenApiDoc>();
      const adminPaths = Object.entries(operator.paths).filter(([path]) => path.startsWith('/admin/v1/'));
      assert.ok(adminPaths.length >= 6);
      for (const [path, operations] of adminPaths) {
        for (const [method, operation] of Object.entries(operations)) {
          assert.deepEqual(operation.security, [{ adminToken: [] }], `${method} ${path}`);
        }
      }
    });

    it('does not list itself or the icon files', () => {
      assert.equal(doc.paths['/api/v1/openapi.json'], undefined);
      assert.ok(!Object.keys(doc.paths).some((path) => path.startsWith('/static/') || path.startsWith('/docs')));
    });
  });

  it('GET /docs serves the interactive HTML docs', async () => {
    let res = await t.app.inject({ method: 'GET', url: '/docs' });
    for (let hops = 0; res.statusCode >= 300 && res.statusCode < 400 && hops < 5; hops++) {
      const location = res.headers.location;
      assert.ok(typeof location === 'string', 'a redirect names its target');
      res = await t.app.inject({ method: 'GET', url: new URL(location, 'http://localhost/docs').pathname });
    }
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.match(res.body, /<html/i);
    assert.match(res.body, /swagger/i);
  });

  it('GET /healthz is 200 {status: ok}', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'ok' });
  });

  it('GET /readyz is 200 {ready: true} with the database check and the workers (issue 36.2)', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(res.statusCode, 200);
    const body = res.json<{ ready: boolean; checks: { database: boolean; workers: boolean } }>();
    assert.deepEqual(Object.keys(body.checks).sort(), ['database', 'workers'], 'no redis check without REDIS_URL');
    assert.equal(body.ready, true);
    assert.equal(body.checks.database, true);
    assert.equal(typeof body.checks.workers, 'boolean');
  });

  it('GET /admin/v1/health has the details /readyz keeps to itself, behind the admin token', async () => {
    const res = await t.admin('GET', '/admin/v1/health');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json<{ ready: boolean; database: { ok: boolean; ping_ms: number }; chains: object }>();
    assert.equal(body.ready, true);
    assert.equal(body.database.ok, true);
    assert.equal(typeof body.database.ping_ms, 'number');
    assert.deepEqual(body.chains, {});
    const more = res.json<{ redis: unknown; workers: unknown[]; workers_ok: boolean }>();
    assert.equal(more.redis, null, 'no REDIS_URL');
    assert.ok(Array.isArray(more.workers));
    assert.equal(typeof more.workers_ok, 'boolean');
    assert.equal((await t.app.inject({ method: 'GET', url: '/admin/v1/health' })).statusCode, 401);
  });

  it('GET /metrics is Prometheus text counting requests by route template', async () => {
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/currencies' })).statusCode, 200);
    assert.equal((await t.app.inject({ method: 'GET', url: '/no/such/route-8f3a' })).statusCode, 404);
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    assert.match(res.body, /^# HELP http_requests_total /m);
    assert.match(res.body, /^# TYPE http_requests_total counter$/m);
    const line = res.body.split('\n').find((l) => l.startsWith('http_requests_total{') && l.includes('route="/api/v1/currencies"'));
    assert.ok(line !== undefined, 'a series for /api/v1/currencies');
    assert.match(line, /method="GET"/);
    assert.match(line, /status="200"/);
    assert.ok(Number(line.split(' ').at(-1)) >= 1);
    assert.match(res.body, /^http_request_duration_seconds_bucket\{/m);
    // Unmatched URLs share one label value: clients cannot blow up the series count.
    assert.ok(!res.body.includes('route-8f3a'));
    assert.match(res.body, /http_requests_total\{method="GET",route="unmatched",status="404"\} \d+/);
  });

  it('no log line holds an API key, its secret, a signature or the admin token', async () => {
    const logsBefore = t.logs.length;
    const partner = await t.admin('POST', '/admin/v1/partners', { name: 'Logged' });
    assert.equal(partner.statusCode, 201);
    const issued = await t.admin('POST', `/admin/v1/partners/${partner.json<{ id: string }>().id}/keys`);
    assert.equal(issued.statusCode, 201);
    const apiKey = issued.json<{ api_key: string }>().api_key;
    const secret = apiKey.slice(apiKey.indexOf('.') + 1);
    const signature = createHmac('sha256', secret).update('').digest('hex');

    const calls: Array<Promise<LightMyRequestResponse>> = [
      t.app.inject({ method: 'GET', url: '/api/v1/partner/account', headers: { authorization: `Bearer ${apiKey}`, 'x-signature': signature } }),
      t.app.inject({ method: 'GET', url: '/api/v1/partner/account', headers: { 'x-api-key': apiKey, 'x-signature': signature } }),
      t.app.inject({ method: 'GET', url: '/api/v1/partner/account', headers: { 'x-api-key': apiKey, 'x-signature': 'ab'.repeat(32) } }),
      t.app.inject({ method: 'GET', url: '/api/v1/partner/account', headers: { authorization: `Bearer ${t.adminToken}` } }),
      t.app.inject({ method: 'GET', url: '/api/v1/currencies', headers: { authorization: `Bearer ${apiKey}`, 'x-signature': signature } }),
      t.app.inject({ method: 'GET', url: '/admin/v1/partners', headers: { authorization: `Bearer ${apiKey}` } }),
      t.app.inject({ method: 'GET', url: '/test/log-headers', headers: { authorization: `Bearer ${t.adminToken}`, 'x-api-key': apiKey, 'x-signature': signature } }),
    ];
    const responses = await Promise.all(calls);
    assert.deepEqual(
      responses.map((r) => r.statusCode),
      [200, 200, 401, 401, 200, 401, 200],
    );

    const lines = t.logs.slice(logsBefore);
    // The checks below mean something only if these requests were logged at all.
    assert.ok(lines.length >= responses.length * 2, 'requests are logged');
    for (const res of responses) {
      assert.ok(lines.some((line) => line.includes(String(res.headers['x-request-id']))), 'each request id is logged');
    }
    const headersLine = lines.find((line) => line.includes('headers seen'));
    assert.ok(headersLine !== undefined, 'the header-logging route logged');
    assert.ok(headersLine.includes('[redacted]'), 'credential headers are redacted');
    assert.ok(lines.some((line) => line.includes('fields seen') && line.includes('[redacted]')));

    for (const [label, value] of [
      ['API key', apiKey],
      ['secret', secret],
      ['signature', signature],
      ['admin token', t.adminToken],
      ['secret field', 'shh-not-logged'],
    ] as const) {
      for (const line of t.logs) assert.ok(!line.includes(value), `a log line holds the ${label}: ${line}`);
    }
  });
});
