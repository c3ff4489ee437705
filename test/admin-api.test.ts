import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildTestApp, type TestApp } from './helpers/test-app.js';
import { assertErrorItems } from './helpers/error-items.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const KEY_ID = /^pk_[a-z0-9]{20}$/;
// v1.2 (docs/contract.md §10.9): cors_origins.
const PARTNER_KEYS = ['cors_origins', 'created_at', 'id', 'markup_bps', 'max_open_orders', 'name', 'rate_limit_per_minute', 'status'];
const PUBLIC_CURRENCY_KEYS = [
  'id', 'coin', 'network', 'name', 'is_active', 'is_deposit_enabled', 'is_withdraw_enabled',
  'min_amount', 'max_amount', 'min_confirmations', 'decimals', 'is_memo',
  'explorer_tx_url', 'explorer_address_url', 'icon_url', 'contract_address', 'chain_id',
  'chain', 'caip2', 'caip19', 'confirmations_required', 'memo_name', 'address_regex',
];
const ADMIN_CURRENCY_KEYS = [
  ...PUBLIC_CURRENCY_KEYS,
  'payout_fee', 'address_format', 'deposit_strategy', 'price_symbol', 'token_contract', 'sort_order', 'updated_at',
].sort();
const NO_TOKEN = { detail: 'missing or invalid admin token', code: 'unauthorized', errors: [{ code: 'unauthorized', field: null, detail: 'missing or invalid admin token' }] };

interface AdminPartner {
  id: string;
  name: string;
  status: string;
  markup_bps: number;
  rate_limit_per_minute: number;
  created_at: string;
}

function assertPartnerShape(value: unknown): asserts value is AdminPartner {
  const partner = value as AdminPartner;
  assert.deepEqual(Object.keys(partner).sort(), PARTNER_KEYS);
  assert.match(partner.id, UUID);
  assert.equal(typeof partner.name, 'string');
  assert.ok(['active', 'suspended'].includes(partner.status));
  assert.ok(Number.isInteger(partner.markup_bps));
  assert.ok(Number.isInteger(partner.rate_limit_per_minute));
  assert.match(partner.created_at, ISO);
}

function assertJsonError(res: LightMyRequestResponse, status: number, expected: { detail?: string; code: string }): void {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json<{ detail: string; code: string }>();
  assert.deepEqual(Object.keys(body).sort(), ['code', 'detail', 'errors']);
  assertErrorItems(body);
  assert.equal(body.code, expected.code);
  assert.equal(typeof body.detail, 'string');
  if (expected.detail !== undefined) assert.equal(body.detail, expected.detail);
}

describe('operator API (/admin/v1)', () => {
  let t: TestApp;
  let partnerKey: string;
  before(async () => {
    // Hundreds of wrong tokens from one address on purpose; the per-address limit on them is
    // tested in test/auth/admin-auth-throttle.test.ts.
    t = await buildTestApp({ env: { ADMIN_AUTH_FAILURES_PER_MINUTE: '10000' } });
    partnerKey = (await t.createPartner({ name: 'Key Holder' })).apiKey;
  });
  after(() => t.close());

  describe('authorization', () => {
    /** Every operator route, from the generated OpenAPI document, so a new route cannot skip this. */
    const adminRoutes = (): Array<{ method: string; url: string }> => {
      const doc = t.app.swagger() as { paths: Record<string, Record<string, unknown>> };
      const routes: Array<{ method: string; url: string }> = [];
      for (const [template, operations] of Object.entries(doc.paths)) {
        if (!template.startsWith('/admin/v1/')) continue;
        const url = template.replace('{key_id}', `pk_${'a'.repeat(20)}`).replace(/\{[^}]+\}/g, randomUUID());
        for (const method of Object.keys(operations)) routes.push({ method: method.toUpperCase(), url });
      }
      return routes;
    };

    it('the route list covers every known operator route', () => {
      const uuidAnywhere = new RegExp(UUID.source.slice(1, -1), 'g');
      const templates = adminRoutes().map(({ method, url }) => `${method} ${url.replace(uuidAnywhere, '{id}')}`);
      for (const expected of [
        'POST /admin/v1/partners',
        'GET /admin/v1/partners',
        'GET /admin/v1/partners/{id}',
        'PATCH /admin/v1/partners/{id}',
        'POST /admin/v1/partners/{id}/keys',
        'GET /admin/v1/partners/{id}/keys',
        `DELETE /admin/v1/keys/pk_${'a'.repeat(20)}`,
        'GET /admin/v1/currencies',
        'PATCH /admin/v1/currencies/{id}',
      ]) {
        assert.ok(templates.includes(expected), `${expected} is documented`);
      }
    });

    it('no token, a wrong token, a partner key or a malformed header: 401 {detail, code} on every route', async () => {
      const routes = adminRoutes();
      const credentials: Array<[string, Record<string, string>]> = [
        ['no token', {}],
        ['wrong token', { authorization: `Bearer ${randomBytes(32).toString('base64url')}` }],
        ['token with a changed character', { authorization: `Bearer ${t.adminToken.slice(0, -1)}${t.adminToken.endsWith('A') ? 'B' : 'A'}` }],
        ['partner key as Bearer', { authorization: `Bearer ${partnerKey}` }],
        ['partner key as X-API-Key', { 'x-api-key': partnerKey }],
        ['admin token as X-API-Key', { 'x-api-key': t.adminToken }],
        ['admin token without the Bearer scheme', { authorization: t.adminToken }],
        ['admin token as Basic', { authorization: `Basic ${t.adminToken}` }],
      ];
      for (const { method, url } of routes) {
        for (const [label, headers] of credentials) {
          const request: InjectOptions = { method, url, headers };
          if (['POST', 'PATCH', 'PUT'].includes(method)) request.payload = { name: 'x' };
          const res = await t.app.inject(request);
          assert.equal(res.statusCode, 401, `${method} ${url} with ${label}: ${res.body}`);
          assert.deepEqual(res.json(), NO_TOKEN, `${method} ${url} with ${label}`);
          assert.ok(typeof res.headers['x-request-id'] === 'string');
        }
      }
    });

    it('the token is checked before the body: an unauthorized bad body is still 401', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/admin/v1/partners',
        headers: { 'content-type': 'application/json' },
        payload: '{not json',
      });
      assertJsonError(res, 401, NO_TOKEN);
    });

    it('a wrong admin token leaves nothing changed', async () => {
      const before = (await t.admin('GET', '/admin/v1/partners')).json<AdminPartner[]>().length;
      await t.app.inject({ method: 'POST', url: '/admin/v1/partners', headers: { authorization: `Bearer ${partnerKey}` }, payload: { name: 'Sneaky' } });
      const after = (await t.admin('GET', '/admin/v1/partners')).json<AdminPartner[]>();
      assert.equal(after.length, before);
      assert.ok(!after.some((p) => p.name === 'Sneaky'));
    });
  });

  describe('partners', () => {
    it('create: 201 with defaults; list, get and patch', async () => {
      const created = await t.admin('POST', '/admin/v1/partners', { name: '  Beta Swap  ' });
      assert.equal(created.statusCode, 201, created.body);
      const partner = created.json<unknown>();
      assertPartnerShape(partner);
      assert.equal(partner.name, 'Beta Swap', 'name is trimmed');
      assert.equal(partner.status, 'active');
      assert.equal(partner.markup_bps, 0);
      assert.equal(partner.rate_limit_per_minute, 600);

      const custom = await t.admin('POST', '/admin/v1/partners', { name: 'Gamma', markup_bps: 120, rate_limit_per_minute: 5000 });
      assert.equal(custom.statusCode, 201);
      const gamma = custom.json<unknown>();
      assertPartnerShape(gamma);
      assert.equal(gamma.markup_bps, 120);
      assert.equal(gamma.rate_limit_per_minute, 5000);

      const fetched = await t.admin('GET', `/admin/v1/partners/${partner.id}`);
      assert.equal(fetched.statusCode, 200);
      assert.deepEqual(fetched.json(), partner);

      const list = await t.admin('GET', '/admin/v1/partners');
      assert.equal(list.statusCode, 200);
      const partners = list.json<unknown[]>();
      assert.ok(Array.isArray(partners));
      partners.forEach(assertPartnerShape);
      const ids = (partners as AdminPartner[]).map((p) => p.id);
      assert.ok(ids.includes(partner.id) && ids.includes(gamma.id));
      assert.ok(ids.indexOf(partner.id) < ids.indexOf(gamma.id), 'oldest first');

      const paged = await t.admin('GET', '/admin/v1/partners?limit=1&offset=1');
      assert.equal(paged.statusCode, 200);
      assert.deepEqual(paged.json(), [partners[1]]);

      const patched = await t.admin('PATCH', `/admin/v1/partners/${partner.id}`, { markup_bps: 30, rate_limit_per_minute: 1200, status: 'suspended' });
      assert.equal(patched.statusCode, 200);
      const updated = patched.json<unknown>();
      assertPartnerShape(updated);
      assert.deepEqual(updated, { ...partner, markup_bps: 30, rate_limit_per_minute: 1200, status: 'suspended' });
      assert.deepEqual((await t.admin('GET', `/admin/v1/partners/${partner.id}`)).json(), updated);
    });

    it('invalid input is 400 {detail, code}', async () => {
      const cases: Array<[InjectOptions['method'], string, unknown]> = [
        ['POST', '/admin/v1/partners', { name: '' }],
        ['POST', '/admin/v1/partners', { name: '   ' }],
        ['POST', '/admin/v1/partners', { name: 'x', markup_bps: 1001 }],
        ['POST', '/admin/v1/partners', { name: 'x', rate_limit_per_minute: 0 }],
        ['POST', '/admin/v1/partners', { name: 'x', status: 'active' }],
        ['PATCH', `/admin/v1/partners/${randomUUID()}`, {}],
        ['PATCH', `/admin/v1/partners/${randomUUID()}`, { status: 'deleted' }],
        ['GET', '/admin/v1/partners?limit=0', undefined],
        ['GET', '/admin/v1/partners?limit=501', undefined],
        ['GET', '/admin/v1/partners?page=2', undefined],
        ['GET', '/admin/v1/partners/not-a-uuid', undefined],
      ];
      for (const [method, url, payload] of cases) {
        assertJsonError(await t.admin(method, url, payload), 400, { code: 'bad_request' });
      }
    });

    it('an unknown partner id is 404', async () => {
      const id = randomUUID();
      const notFound = { detail: 'partner not found', code: 'not_found', errors: [{ code: 'not_found', field: null, detail: 'partner not found' }] };
      assertJsonError(await t.admin('GET', `/admin/v1/partners/${id}`), 404, notFound);
      assertJsonError(await t.admin('PATCH', `/admin/v1/partners/${id}`, { status: 'suspended' }), 404, notFound);
      assertJsonError(await t.admin('GET', `/admin/v1/partners/${id}/keys`), 404, notFound);
      assertJsonError(await t.admin('POST', `/admin/v1/partners/${id}/keys`), 404, notFound);
    });
  });

  describe('keys', () => {
    it('create (201, shown once), list (never a secret), revoke (204, idempotent)', async () => {
      const partner = (await t.admin('POST', '/admin/v1/partners', { name: 'Keyed' })).json<AdminPartner>();
      const issued = await t.admin('POST', `/admin/v1/partners/${partner.id}/keys`);
      assert.equal(issued.statusCode, 201, issued.body);
      assert.equal(issued.headers['cache-control'], 'no-store');
      const key = issued.json<{ key_id: string; api_key: string; created_at: string; sandbox: boolean }>();
      assert.deepEqual(Object.keys(key).sort(), ['api_key', 'created_at', 'key_id', 'sandbox', 'scope']);
      // No body: a live key (v1.1 sandbox keys are asked for with {"sandbox": true}).
      assert.equal(key.sandbox, false);
      assert.match(key.key_id, KEY_ID);
      assert.match(key.created_at, ISO);
      const [keyId, secret] = key.api_key.split('.');
      assert.equal(keyId, key.key_id);
      assert.match(secret ?? '', /^[A-Za-z0-9_-]{43}$/);

      const second = (await t.admin('POST', `/admin/v1/partners/${partner.id}/keys`)).json<{ key_id: string; api_key: string }>();
      assert.notEqual(second.key_id, key.key_id);

      const listed = await t.admin('GET', `/admin/v1/partners/${partner.id}/keys`);
      assert.equal(listed.statusCode, 200);
      const keys = listed.json<Array<Record<string, unknown>>>();
      assert.deepEqual(keys, [
        { key_id: key.key_id, sandbox: false, scope: 'full', created_at: key.created_at, revoked_at: null },
        { key_id: second.key_id, sandbox: false, scope: 'full', created_at: keys[1]?.created_at, revoked_at: null },
      ]);
      for (const listing of keys) assert.deepEqual(Object.keys(listing).sort(), ['created_at', 'key_id', 'revoked_at', 'sandbox', 'scope']);
      for (const leaked of [secret ?? '', second.api_key.split('.')[1] ?? '', 'api_key', 'secret', 'hash', 'ciphertext']) {
        assert.ok(!listed.body.includes(leaked), `listing contains ${leaked}`);
      }

      const revoked = await t.admin('DELETE', `/admin/v1/keys/${key.key_id}`);
      assert.equal(revoked.statusCode, 204);
      assert.equal(revoked.body, '');
      const afterRevoke = (await t.admin('GET', `/admin/v1/partners/${partner.id}/keys`)).json<Array<{ key_id: string; revoked_at: string | null }>>();
      const revokedAt = afterRevoke.find((k) => k.key_id === key.key_id)?.revoked_at;
      assert.match(revokedAt ?? '', ISO);
      assert.equal(afterRevoke.find((k) => k.key_id === second.key_id)?.revoked_at, null);

      const again = await t.admin('DELETE', `/admin/v1/keys/${key.key_id}`);
      assert.equal(again.statusCode, 204);
      const afterAgain = (await t.admin('GET', `/admin/v1/partners/${partner.id}/keys`)).json<Array<{ key_id: string; revoked_at: string | null }>>();
      assert.equal(afterAgain.find((k) => k.key_id === key.key_id)?.revoked_at, revokedAt, 'first revocation time is kept');
    });

    it('revoking an unknown or malformed key id is 404', async () => {
      const notFound = { detail: 'API key not found', code: 'not_found', errors: [{ code: 'not_found', field: null, detail: 'API key not found' }] };
      assertJsonError(await t.admin('DELETE', `/admin/v1/keys/pk_${'0'.repeat(20)}`), 404, notFound);
      assertJsonError(await t.admin('DELETE', '/admin/v1/keys/not-a-key'), 404, notFound);
    });

    it('a partner without keys lists an empty array', async () => {
      const partner = (await t.admin('POST', '/admin/v1/partners', { name: 'Keyless' })).json<AdminPartner>();
      const res = await t.admin('GET', `/admin/v1/partners/${partner.id}/keys`);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), []);
    });
  });

  describe('currencies', () => {
    it('list: every row, with the internal columns', async () => {
      const res = await t.admin('GET', '/admin/v1/currencies');
      assert.equal(res.statusCode, 200);
      const rows = res.json<Array<Record<string, unknown>>>();
      assert.ok(rows.length >= 14);
      for (const row of rows) {
        assert.deepEqual(Object.keys(row).sort(), ADMIN_CURRENCY_KEYS);
        assert.equal(typeof row.payout_fee, 'number');
        assert.equal(typeof row.address_format, 'string');
        assert.equal(typeof row.sort_order, 'number');
        assert.match(String(row.updated_at), ISO);
      }
      const usdt = rows.find((row) => row.coin === 'USDT' && row.network === 'ERC20');
      assert.equal(usdt?.token_contract, '0xdAC17F958D2ee523a2206206994597C13D831ec7');
    });

    it('patch: 200 with the admin view; inactive rows stay in the admin list', async () => {
      const rows = (await t.admin('GET', '/admin/v1/currencies')).json<Array<Record<string, unknown>>>();
      const trx = rows.find((row) => row.coin === 'TRX');
      assert.ok(trx !== undefined);
      const res = await t.admin('PATCH', `/admin/v1/currencies/${String(trx.id)}`, {
        is_active: false,
        is_deposit_enabled: false,
        min_confirmations: 25,
        payout_fee: '1.25',
        max_amount: '4000000.5',
      });
      assert.equal(res.statusCode, 200, res.body);
      const updated = res.json<Record<string, unknown>>();
      assert.deepEqual(Object.keys(updated).sort(), ADMIN_CURRENCY_KEYS);
      assert.equal(updated.is_active, false);
      assert.equal(updated.is_deposit_enabled, false);
      assert.equal(updated.min_confirmations, 25);
      assert.equal(updated.payout_fee, 1.25);
      assert.equal(updated.max_amount, 4000000.5);
      assert.equal(updated.min_amount, trx.min_amount, 'untouched fields keep their value');

      const listed = (await t.admin('GET', '/admin/v1/currencies')).json<Array<Record<string, unknown>>>();
      assert.equal(listed.find((row) => row.id === trx.id)?.is_active, false);
      const publicList = (await t.app.inject({ method: 'GET', url: '/api/v1/currencies' })).json<Array<{ id: string }>>();
      assert.ok(!publicList.some((row) => row.id === trx.id));
    });

    it('patch errors: empty body, unknown field, bad amount 400; unknown id 404', async () => {
      const rows = (await t.admin('GET', '/admin/v1/currencies')).json<Array<{ id: string; coin: string }>>();
      const eth = rows.find((row) => row.coin === 'ETH');
      assert.ok(eth !== undefined);
      for (const payload of [{}, { coin: 'ETC' }, { min_amount: '-1' }, { min_amount: '1e-3' }, { min_amount: 'abc' }, { is_active: 'yes' }]) {
        assertJsonError(await t.admin('PATCH', `/admin/v1/currencies/${eth.id}`, payload), 400, { code: 'bad_request' });
      }
      assertJsonError(await t.admin('PATCH', `/admin/v1/currencies/${eth.id}`, { min_amount: '0' }), 422, {
        code: 'unprocessable',
        detail: 'min_amount must be greater than 0',
      });
      assertJsonError(await t.admin('PATCH', `/admin/v1/currencies/${randomUUID()}`, { is_active: true }), 404, {
        code: 'not_found',
        detail: 'currency not found',
      });
    });
  });

  describe('orders', () => {
    it('sandbox=true lists test orders only, sandbox=false live ones only, absent both; anything else 400', async () => {
      const partner = await t.createPartner({ name: 'Sandbox filter' });
      const sandboxKey = (await t.admin('POST', `/admin/v1/partners/${partner.id}/keys`, { sandbox: true })).json<{ api_key: string }>().api_key;
      const place = async (apiKey: string) => {
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/v1/partner/orders',
          headers: { authorization: `Bearer ${apiKey}` },
          payload: {
            coin_from: 'BTC', network_from: 'BTC', coin_to: 'ETH', network_to: 'ETH', amount_from: 0.1, rate_type: 'float',
            recipient_address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
          },
        });
        assert.equal(res.statusCode, 201, res.body);
        return res.json<{ id: string }>().id;
      };
      const live = await place(partner.apiKey);
      const test = await place(sandboxKey);
      const listed = async (query: string) => {
        const res = await t.admin('GET', `/admin/v1/orders?partner_id=${partner.id}${query}`);
        assert.equal(res.statusCode, 200, res.body);
        return res.json<Array<{ id: string; sandbox: boolean }>>().map((order) => [order.id, order.sandbox]);
      };
      assert.deepEqual(await listed('&sandbox=true'), [[test, true]]);
      assert.deepEqual(await listed('&sandbox=false'), [[live, false]]);
      assert.deepEqual((await listed('')).sort(), [[test, true], [live, false]].sort());
      assertJsonError(await t.admin('GET', '/admin/v1/orders?sandbox=maybe'), 400, { code: 'bad_request' });
    });
  });
});
