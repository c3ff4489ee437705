import assert from 'node:assert/strict';
import crypto, { createHmac, randomBytes } from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { after, before, describe, it, mock } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, type TestApp } from './helpers/test-app.js';
import { assertErrorItems } from './helpers/error-items.js';

const ACCOUNT = '/api/v1/partner/account';
const INVALID_KEY = { detail: 'invalid API key', code: 'unauthorized', errors: [{ code: 'unauthorized', field: null, detail: 'invalid API key' }] };

interface Partner {
  id: string;
  apiKey: string;
  keyId: string;
}

const secretOf = (apiKey: string): string => apiKey.slice(apiKey.indexOf('.') + 1);
const sign = (apiKey: string, body = ''): string => createHmac('sha256', secretOf(apiKey)).update(body).digest('hex');
/** A well-formed key whose id does not exist. */
const unknownKey = (): string => `pk_${randomBytes(10).toString('hex')}.${randomBytes(32).toString('base64url')}`;

function assertUnauthorized(res: LightMyRequestResponse, detail?: string): void {
  assert.equal(res.statusCode, 401, res.body);
  const body = res.json<{ detail: unknown; code: unknown }>();
  assert.deepEqual(Object.keys(body).sort(), ['code', 'detail', 'errors']);
  assertErrorItems(body);
  assert.equal(body.code, 'unauthorized');
  assert.equal(typeof body.detail, 'string');
  if (detail !== undefined) assert.equal(body.detail, detail);
}

describe('partner key authentication (GET /api/v1/partner/account)', () => {
  let t: TestApp;
  let acme: Partner;
  before(async () => {
    t = await buildTestApp();
    acme = await t.createPartner({ name: 'Acme Exchange', markup_bps: 25, rate_limit_per_minute: 900 });
  });
  after(() => t.close());

  const account = (headers: Record<string, string> = {}): Promise<LightMyRequestResponse> =>
    t.app.inject({ method: 'GET', url: ACCOUNT, headers });

  const expectedAccount = (partner: Partner, fields: Record<string, unknown> = {}) => ({
    id: partner.id,
    name: 'Acme Exchange',
    status: 'active',
    rate_limit_per_minute: 900,
    markup_bps: 25,
    ...fields,
  });

  describe('accepted keys', () => {
    it('Authorization: Bearer <key>', async () => {
      const res = await account({ authorization: `Bearer ${acme.apiKey}` });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), expectedAccount(acme));
    });

    it('the Bearer scheme is case-insensitive', async () => {
      const res = await account({ authorization: `bearer ${acme.apiKey}` });
      assert.equal(res.statusCode, 200, res.body);
    });

    it('X-API-Key: <key>', async () => {
      const res = await account({ 'x-api-key': acme.apiKey });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), expectedAccount(acme));
    });

    it('the same key in both headers', async () => {
      const res = await account({ authorization: `Bearer ${acme.apiKey}`, 'x-api-key': acme.apiKey });
      assert.equal(res.statusCode, 200, res.body);
    });
  });

  describe('refused keys', () => {
    it('no key: 401', async () => {
      assertUnauthorized(await account(), 'missing API key: send Authorization: Bearer <key> or X-API-Key');
    });

    it('an older plaintext key without a dot: 401', async () => {
      const plain = acme.apiKey.replace('.', '');
      assertUnauthorized(await account({ authorization: `Bearer ${plain}` }), 'API key must have the form <key_id>.<secret>');
      assertUnauthorized(await account({ 'x-api-key': 'legacyplaintextkey0123456789' }), 'API key must have the form <key_id>.<secret>');
    });

    it('an unknown key id: 401', async () => {
      const res = await account({ authorization: `Bearer ${unknownKey()}` });
      assertUnauthorized(res);
      assert.deepEqual(res.json(), INVALID_KEY);
    });

    it('a known key id with a wrong secret: 401', async () => {
      const res = await account({ authorization: `Bearer ${acme.keyId}.${randomBytes(32).toString('base64url')}` });
      assert.deepEqual(res.json(), INVALID_KEY);
      assert.equal(res.statusCode, 401);
    });

    it('junk after the key id: 401', async () => {
      for (const key of [`${acme.keyId}.`, `${acme.keyId}.short`, `.${secretOf(acme.apiKey)}`, `${acme.apiKey}x`]) {
        assertUnauthorized(await account({ 'x-api-key': key }));
      }
    });

    it('Authorization that is not Bearer: 401', async () => {
      for (const value of [`Basic ${Buffer.from(`u:${acme.apiKey}`).toString('base64')}`, `Token ${acme.apiKey}`, acme.apiKey, 'Bearer']) {
        assertUnauthorized(await account({ authorization: value }), 'malformed or conflicting API key headers');
      }
    });

    it('two different keys in the two headers: 401, even when both are valid', async () => {
      const other = await t.app.inject({ method: 'POST', url: `/admin/v1/partners/${acme.id}/keys`, headers: { authorization: `Bearer ${t.adminToken}` } });
      assert.equal(other.statusCode, 201);
      const otherKey = other.json<{ api_key: string }>().api_key;
      assert.equal((await account({ 'x-api-key': otherKey })).statusCode, 200);
      assertUnauthorized(
        await account({ authorization: `Bearer ${acme.apiKey}`, 'x-api-key': otherKey }),
        'malformed or conflicting API key headers',
      );
    });

    it('the admin token is not a partner key: 401', async () => {
      assertUnauthorized(await account({ authorization: `Bearer ${t.adminToken}` }));
      assertUnauthorized(await account({ 'x-api-key': t.adminToken }));
    });
  });

  describe('revocation and suspension take effect at once', () => {
    it('a revoked key is 401 on the very next request; other keys keep working', async () => {
      const victim = await t.createPartner({ name: 'Revoked Ltd' });
      const spare = await t.admin('POST', `/admin/v1/partners/${victim.id}/keys`);
      const spareKey = spare.json<{ api_key: string }>().api_key;
      assert.equal((await account({ authorization: `Bearer ${victim.apiKey}` })).statusCode, 200);

      const revoke = await t.admin('DELETE', `/admin/v1/keys/${victim.keyId}`);
      assert.equal(revoke.statusCode, 204);
      assert.equal(revoke.body, '');

      const res = await account({ authorization: `Bearer ${victim.apiKey}` });
      assertUnauthorized(res);
      assert.deepEqual(res.json(), INVALID_KEY, 'a revoked key looks like any invalid key');
      assertUnauthorized(await account({ 'x-api-key': victim.apiKey }));
      assert.equal((await account({ authorization: `Bearer ${spareKey}` })).statusCode, 200);
    });

    it('a suspended partner is 403; reactivated, 200 again', async () => {
      const partner = await t.createPartner({ name: 'Suspendable' });
      const suspend = await t.admin('PATCH', `/admin/v1/partners/${partner.id}`, { status: 'suspended' });
      assert.equal(suspend.statusCode, 200);
      assert.equal(suspend.json<{ status: string }>().status, 'suspended');

      const refused = await account({ authorization: `Bearer ${partner.apiKey}` });
      assert.equal(refused.statusCode, 403);
      assert.deepEqual(refused.json(), { detail: 'partner account is not active', code: 'forbidden', errors: [{ code: 'forbidden', field: null, detail: 'partner account is not active' }] });

      const reactivate = await t.admin('PATCH', `/admin/v1/partners/${partner.id}`, { status: 'active' });
      assert.equal(reactivate.statusCode, 200);
      const res = await account({ authorization: `Bearer ${partner.apiKey}` });
      assert.equal(res.statusCode, 200);
      assert.equal(res.json<{ status: string }>().status, 'active');
    });

    it('a suspended partner with a wrong secret is still 401, not 403 (no status oracle)', async () => {
      const partner = await t.createPartner({ name: 'Quiet' });
      await t.admin('PATCH', `/admin/v1/partners/${partner.id}`, { status: 'suspended' });
      const res = await account({ authorization: `Bearer ${partner.keyId}.${randomBytes(32).toString('base64url')}` });
      assert.deepEqual(res.json(), INVALID_KEY);
    });
  });

  describe('X-Signature', () => {
    it('the lowercase hex HMAC-SHA256 of the empty body, keyed with the secret: 200', async () => {
      const res = await account({ authorization: `Bearer ${acme.apiKey}`, 'x-signature': sign(acme.apiKey) });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), expectedAccount(acme));
      const viaHeader = await account({ 'x-api-key': acme.apiKey, 'x-signature': sign(acme.apiKey) });
      assert.equal(viaHeader.statusCode, 200);
    });

    it('a wrong signature: 401 invalid_signature', async () => {
      const wrong = [
        sign(acme.apiKey, 'other body'),
        createHmac('sha256', 'not the secret').update('').digest('hex'),
        createHmac('sha256', acme.apiKey).update('').digest('hex'),
        sign(acme.apiKey).slice(0, 63),
        `${sign(acme.apiKey)}00`,
        'zz'.repeat(32),
        createHmac('sha256', secretOf(acme.apiKey)).update('').digest('base64'),
        '',
      ];
      for (const signature of wrong) {
        const res = await account({ authorization: `Bearer ${acme.apiKey}`, 'x-signature': signature });
        assert.equal(res.statusCode, 401, `signature ${JSON.stringify(signature)}`);
        assert.deepEqual(res.json(), { detail: 'invalid signature', code: 'invalid_signature', errors: [{ code: 'invalid_signature', field: null, detail: 'invalid signature' }] });
      }
    });

    it('a signature without a key is still a missing key', async () => {
      assertUnauthorized(await account({ 'x-signature': sign(acme.apiKey) }), 'missing API key: send Authorization: Bearer <key> or X-API-Key');
    });
  });

  describe('constant-time secret comparison', () => {
    it('unknown key ids and wrong secrets both go through crypto.timingSafeEqual on 32-byte hashes', async () => {
      // The service imports timingSafeEqual by name: syncBuiltinESMExports() makes the ESM
      // bindings of node:crypto follow the mocked property of its default export.
      const spy = mock.method(crypto, 'timingSafeEqual');
      syncBuiltinESMExports();
      try {
        const comparisons = async (key: string, expect: number, label: string) => {
          const before = spy.mock.callCount();
          const res = await account({ authorization: `Bearer ${key}` });
          assert.equal(res.statusCode, expect, label);
          return spy.mock.calls.slice(before).map((call) => {
            const [a, b] = call.arguments;
            assert.ok(Buffer.isBuffer(a) && Buffer.isBuffer(b), label);
            assert.equal(a.length, b.length, label);
            return { bytes: a.length, equal: call.result };
          });
        };
        // A fresh service: the first use of a key is checked against its stored hash.
        const fresh = await buildTestApp();
        try {
          const partner = await fresh.createPartner({ name: 'Fresh' });
          const before = spy.mock.callCount();
          const res = await fresh.app.inject({ method: 'GET', url: '/api/v1/partner/account', headers: { authorization: `Bearer ${partner.apiKey}` } });
          assert.equal(res.statusCode, 200);
          const calls = spy.mock.calls.slice(before).map((call) => ({ bytes: (call.arguments[0] as Buffer).length, equal: call.result }));
          assert.deepEqual(calls, [{ bytes: 32, equal: true }], 'first use: one comparison of 32-byte hashes');
        } finally {
          await fresh.close();
        }
        await comparisons(acme.apiKey, 200, 'right secret, once to be sure it was verified');
        assert.deepEqual(await comparisons(acme.apiKey, 200, 'right secret'), [{ bytes: 43, equal: true }],
          'a secret verified before is compared as is, in constant time, without hashing');
        assert.deepEqual(await comparisons(unknownKey(), 401, 'unknown key id'), [{ bytes: 32, equal: false }]);
        // The wrong secret of a key in use fails the direct comparison and still takes the hash
        // path, so it costs what an unknown key id costs (no oracle on which key ids exist).
        assert.deepEqual(await comparisons(`${acme.keyId}.${randomBytes(32).toString('base64url')}`, 401, 'wrong secret'), [
          { bytes: 43, equal: false },
          { bytes: 32, equal: false },
        ]);
      } finally {
        spy.mock.restore();
        syncBuiltinESMExports();
      }
    });

    it('unknown key id and wrong secret answers are byte-identical', async () => {
      const unknown = await account({ authorization: `Bearer ${unknownKey()}` });
      const wrongSecret = await account({ authorization: `Bearer ${acme.keyId}.${randomBytes(32).toString('base64url')}` });
      assert.equal(unknown.statusCode, wrongSecret.statusCode);
      assert.equal(unknown.body, wrongSecret.body);
      assert.equal(unknown.headers['content-type'], wrongSecret.headers['content-type']);
      assert.equal(unknown.headers['content-length'], wrongSecret.headers['content-length']);
    });
  });
});
