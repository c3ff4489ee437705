import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { before, describe, it } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { CabinetClient } from './cabinet-client.js';
import type { TestApp } from './test-app.js';
import { assertErrorItems } from './error-items.js';

/**
 * The authentication checks every API-key route must pass (spec §5, docs/contract.md §3 and §6), written
 * once and run against each protected route:
 *
 *   runSecuritySuite('GET /api/v1/partner/account', {
 *     app: () => t,
 *     request: async () => ({ method: 'GET', url: '/api/v1/partner/account' }),
 *     successStatus: 200,
 *   });
 *
 * Call it inside a `describe` whose `before` builds the app: `app` is read only when the tests
 * run. The suite makes its own partners and keys, so it can share an app with other tests.
 */

export interface SuitePartner {
  id: string;
  apiKey: string;
  keyId: string;
}

/** One request, without credentials: the suite adds them. `payload` is sent byte for byte. */
export interface SuiteRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  payload?: string;
}

export interface SecurityTarget {
  /** The app under test (called once the enclosing `before` has built it). */
  app: () => TestApp;
  /**
   * The request that succeeds for `owner`; may create what it needs first (e.g. an order owned
   * by `owner` for GET /partner/orders/{id}). Called anew for every test.
   */
  request: (owner: SuitePartner) => Promise<SuiteRequest>;
  /** Status of the request with the owner's valid key. */
  successStatus: number;
  /**
   * When the route reads a resource owned by `owner`: the status another active partner's valid
   * key gets (404 for an order: its existence is not revealed).
   */
  otherPartnerStatus?: number;
  /**
   * What the route could change (e.g. row counts); every refused request must leave it as it
   * was. Omitted for read-only routes.
   */
  state?: () => Promise<unknown>;
  /**
   * A request a valid key would get 400 for (e.g. an invalid body): without a valid key it must
   * still be 401, since authentication comes first and a stranger learns nothing about inputs.
   */
  invalidRequest?: (owner: SuitePartner) => Promise<SuiteRequest>;
  /**
   * The route acts on sandbox orders only (docs/contract.md §10.2: a live key gets 404 for them): every
   * partner's key in the suite is a sandbox key.
   */
  sandbox?: boolean;
  /**
   * The status the owner's client key (`pk_client_…`, docs/contract.md §10.9) gets for the request built
   * for the owner: 403 `scope` (the default) on every route a client key may not use; the
   * success status where it may; 404 where it may but the resource is not one it created.
   */
  clientKeyStatus?: number;
}

let addressCounter = 0;
/**
 * A client address per request: refused authentications count against the client address
 * (60 a minute), which must never be what a check here sees.
 */
function freshAddress(): string {
  addressCounter++;
  return `10.250.${(addressCounter >> 8) & 255}.${addressCounter & 255}`;
}

const secretOf = (apiKey: string): string => apiKey.slice(apiKey.indexOf('.') + 1);

/** Lowercase hex HMAC-SHA256 of the exact body bytes, keyed with the secret part of the key. */
export function signBody(apiKey: string, body = ''): string {
  return createHmac('sha256', secretOf(apiKey)).update(body).digest('hex');
}

/** Asserts `{detail: string, code}` and nothing else, with the given status and code. */
export function assertAuthError(res: LightMyRequestResponse, status: number, code: string, detail?: string | RegExp): void {
  assert.equal(res.statusCode, status, `expected ${status}, got ${res.statusCode}: ${res.body}`);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const body = res.json<Record<string, unknown>>();
  assert.deepEqual(Object.keys(body).sort(), ['code', 'detail', 'errors'], res.body);
  assertErrorItems(body);
  assert.equal(typeof body.detail, 'string');
  assert.ok((body.detail as string).length > 0);
  assert.equal(body.code, code, res.body);
  if (typeof detail === 'string') assert.equal(body.detail, detail);
  else if (detail !== undefined) assert.match(body.detail as string, detail);
  // Nothing secret comes back.
  assert.doesNotMatch(res.body, /stack|at [A-Za-z]+ \(/);
}

export function runSecuritySuite(name: string, target: SecurityTarget): void {
  describe(`security: ${name}`, () => {
    let owner: SuitePartner;
    let other: SuitePartner;
    let suspended: SuitePartner;
    let revokedKey: string;
    let clientKey: string;

    before(async () => {
      const t = target.app();
      const keyBody = target.sandbox === true ? { sandbox: true } : undefined;
      /** A partner whose key is of the route's mode (a sandbox key for a sandbox-only route). */
      const partner = async (name: string): Promise<SuitePartner> => {
        const made = await t.createPartner({ name, rate_limit_per_minute: 100_000 });
        if (keyBody === undefined) return made;
        const issued = await t.admin('POST', `/admin/v1/partners/${made.id}/keys`, keyBody);
        assert.equal(issued.statusCode, 201, issued.body);
        const { api_key, key_id } = issued.json<{ api_key: string; key_id: string }>();
        return { id: made.id, apiKey: api_key, keyId: key_id };
      };
      owner = await partner('Suite Owner');
      other = await partner('Suite Other');
      suspended = await partner('Suite Suspended');
      const suspend = await t.admin('PATCH', `/admin/v1/partners/${suspended.id}`, { status: 'suspended' });
      assert.equal(suspend.statusCode, 200, suspend.body);
      // A second key of the owner, revoked: the owner's other key keeps working.
      const extra = await t.admin('POST', `/admin/v1/partners/${owner.id}/keys`, keyBody);
      assert.equal(extra.statusCode, 201, extra.body);
      const { api_key, key_id } = extra.json<{ api_key: string; key_id: string }>();
      const revoke = await t.admin('DELETE', `/admin/v1/keys/${key_id}`);
      assert.ok(revoke.statusCode === 200 || revoke.statusCode === 204, revoke.body);
      revokedKey = api_key;
      const client = await t.admin('POST', `/admin/v1/partners/${owner.id}/keys`, { ...keyBody, scope: 'client' });
      assert.equal(client.statusCode, 201, client.body);
      clientKey = client.json<{ api_key: string }>().api_key;
    });

    /** The route's request for the owner, sent with `headers` (and nothing else) as credentials. */
    const send = async (headers: Record<string, string>, build = target.request): Promise<LightMyRequestResponse> => {
      const request = await build(owner);
      const options: InjectOptions = {
        method: request.method,
        url: request.url,
        remoteAddress: freshAddress(),
        headers: { ...(request.payload === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        ...(request.payload === undefined ? {} : { payload: request.payload }),
      };
      return target.app().app.inject(options);
    };

    const bearer = (apiKey: string): Record<string, string> => ({ authorization: `Bearer ${apiKey}` });

    /** Sends with `headers`, expects the refusal, and that it changed nothing. */
    const refused = async (
      headers: Record<string, string>,
      status: number,
      code: string,
      detail?: string | RegExp,
      build = target.request,
    ): Promise<void> => {
      const before = await target.state?.();
      assertAuthError(await send(headers, build), status, code, detail);
      assert.deepEqual(await target.state?.(), before, 'a refused request changes nothing');
    };

    it('the owner key succeeds (Bearer and X-API-Key)', async () => {
      const viaBearer = await send(bearer(owner.apiKey));
      assert.equal(viaBearer.statusCode, target.successStatus, viaBearer.body);
      const viaHeader = await send({ 'x-api-key': owner.apiKey });
      assert.equal(viaHeader.statusCode, target.successStatus, viaHeader.body);
    });

    it('missing key: 401', async () => {
      await refused({}, 401, 'unauthorized', /missing API key/);
    });

    if (target.invalidRequest !== undefined) {
      const invalid = target.invalidRequest;
      it('an invalid request without a valid key: 401 or 403 before any input check', async () => {
        assert.equal((await send(bearer(owner.apiKey), invalid)).statusCode, 400, 'the request is really invalid');
        await refused({}, 401, 'unauthorized', undefined, invalid);
        await refused(bearer(revokedKey), 401, 'unauthorized', undefined, invalid);
        await refused(bearer(`${owner.keyId}.${randomBytes(32).toString('base64url')}`), 401, 'unauthorized', undefined, invalid);
        await refused(bearer(suspended.apiKey), 403, 'forbidden', undefined, invalid);
        await refused({ ...bearer(owner.apiKey), 'x-signature': 'deadbeef' }, 401, 'invalid_signature', undefined, invalid);
      });
    }

    it('malformed key (no dot, old plaintext style): 401', async () => {
      const noDot = owner.apiKey.replace('.', '');
      await refused(bearer(noDot), 401, 'unauthorized');
      await refused({ 'x-api-key': noDot }, 401, 'unauthorized');
      await refused(bearer(`${owner.keyId}.`), 401, 'unauthorized');
      await refused(bearer('.'), 401, 'unauthorized');
    });

    it('malformed Authorization header (not Bearer, or conflicting keys): 401', async () => {
      await refused({ authorization: `Basic ${owner.apiKey}` }, 401, 'unauthorized');
      await refused({ authorization: owner.apiKey }, 401, 'unauthorized');
      await refused({ ...bearer(owner.apiKey), 'x-api-key': other.apiKey }, 401, 'unauthorized');
    });

    it('unknown key_id: 401', async () => {
      const unknown = `pk_${randomBytes(10).toString('hex')}.${randomBytes(32).toString('base64url')}`;
      await refused(bearer(unknown), 401, 'unauthorized', 'invalid API key');
    });

    it('revoked key: 401', async () => {
      await refused(bearer(revokedKey), 401, 'unauthorized', 'invalid API key');
      await refused({ 'x-api-key': revokedKey }, 401, 'unauthorized', 'invalid API key');
    });

    it('wrong secret for a real key_id: 401', async () => {
      const wrong = `${owner.keyId}.${randomBytes(32).toString('base64url')}`;
      await refused(bearer(wrong), 401, 'unauthorized', 'invalid API key');
      // Another partner's secret under this key_id is no better.
      await refused(bearer(`${owner.keyId}.${secretOf(other.apiKey)}`), 401, 'unauthorized', 'invalid API key');
    });

    it('suspended partner: 403', async () => {
      await refused(bearer(suspended.apiKey), 403, 'forbidden', 'partner account is not active');
    });

    it('bad X-Signature: 401 invalid signature', async () => {
      const request = await target.request(owner);
      const body = request.payload ?? '';
      const good = signBody(owner.apiKey, body);
      const flipped = `${good.slice(0, -1)}${good.endsWith('0') ? '1' : '0'}`;
      for (const signature of [
        flipped,
        'deadbeef',
        '',
        'not hex at all',
        signBody(other.apiKey, body), // another partner's secret
        signBody(owner.apiKey, `${body} `), // other bytes
        createHmac('sha256', owner.apiKey).update(body).digest('hex'), // keyed with the whole key
      ]) {
        await refused({ ...bearer(owner.apiKey), 'x-signature': signature }, 401, 'invalid_signature', 'invalid signature');
      }
    });

    it('correct X-Signature (lowercase hex HMAC-SHA256 of the exact body): success', async () => {
      const request = await target.request(owner);
      const res = await target.app().app.inject({
        method: request.method,
        url: request.url,
        remoteAddress: freshAddress(),
        headers: {
          ...bearer(owner.apiKey),
          'x-signature': signBody(owner.apiKey, request.payload ?? ''),
          ...(request.payload === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(request.payload === undefined ? {} : { payload: request.payload }),
      });
      assert.equal(res.statusCode, target.successStatus, res.body);
    });

    if (target.otherPartnerStatus !== undefined) {
      const status = target.otherPartnerStatus;
      it(`another partner's valid key: ${status}`, async () => {
        const request = await target.request(owner);
        const before = await target.state?.();
        const res = await target.app().app.inject({
          method: request.method,
          url: request.url,
          remoteAddress: freshAddress(),
          headers: {
            ...bearer(other.apiKey),
            ...(request.payload === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(request.payload === undefined ? {} : { payload: request.payload }),
        });
        assertAuthError(res, status, status === 404 ? 'not_found' : 'forbidden');
        assert.deepEqual(await target.state?.(), before);
      });
    }

    const clientStatus = target.clientKeyStatus ?? 403;
    it(`the owner's client key (pk_client_…): ${clientStatus}`, async () => {
      if (clientStatus === 403) await refused(bearer(clientKey), 403, 'scope', /client key/);
      else if (clientStatus === 404) await refused(bearer(clientKey), 404, 'not_found');
      else assert.equal((await send(bearer(clientKey))).statusCode, clientStatus);
    });

    it('the refusals did not suspend or break the owner key', async () => {
      const res = await send(bearer(owner.apiKey));
      assert.equal(res.statusCode, target.successStatus, res.body);
    });
  });
}

/** Headers every cabinet answer carries (issue 16: a strict CSP on every page; no-store). */
const CABINET_HEADERS: Record<string, RegExp> = {
  'content-security-policy':
    /^default-src 'self';.*form-action 'self';.*frame-ancestors 'none';.*object-src 'none';.*script-src 'self';.*script-src-attr 'none';.*style-src 'self'$/,
  'x-content-type-options': /^nosniff$/,
  'referrer-policy': /^no-referrer$/,
  'cache-control': /^no-store$/,
};

/** One cabinet route, for the owner's resources. */
export interface CabinetSuiteRoute {
  method: 'GET' | 'POST';
  /** The path naming the owner's resource (or a page of the owner's own data). */
  path: string;
  /** Form fields of a POST (the suite adds the CSRF token where it tests one). */
  fields?: Record<string, string>;
  /** What the owner's signed-in person gets. */
  ownerStatus: number;
  /**
   * True when the path names a resource (an order, key, endpoint, delivery): another partner's
   * person gets 404, its existence not revealed. False for the pages of one's own data (the
   * lists, settings): another partner's person gets its own page, without the owner's data.
   */
  namesResource: boolean;
}

export interface CabinetSecurityTarget {
  /** A signed-in person of the partner that owns the routes' resources. */
  owner: () => CabinetClient;
  /** A signed-in person of another, active partner. */
  other: () => CabinetClient;
  /** A browser with no session. */
  anonymous: () => CabinetClient;
  /** Text of the owner's data (order ids, key ids, endpoint URLs) that no other page may show. */
  ownerMarkers: () => string[];
  /** What the routes could change; every refused request must leave it as it was. */
  state: () => Promise<unknown>;
}

/**
 * The partner cabinet's checks (issue 16), run over each of its routes: without a session a
 * route redirects to sign-in and changes nothing; another partner's person gets 404 for the
 * owner's resources (and never sees the owner's data on its own pages); a change without the
 * session's CSRF token is 403 and changes nothing; the owner succeeds. Routes run in order:
 * put the ones that delete last.
 */
export function runCabinetSecuritySuite(name: string, target: CabinetSecurityTarget, routes: () => CabinetSuiteRoute[], count: number): void {
  describe(`cabinet security: ${name}`, () => {
    for (let index = 0; index < count; index++) {
      const route = () => {
        const found = routes()[index];
        if (found === undefined) throw new Error(`no route ${index}`);
        return found;
      };
      const send = async (client: CabinetClient, csrf?: string | null) => {
        const { method, path, fields = {} } = route();
        if (method === 'GET') return client.get(path);
        // The form's page first, as a browser would have it: the token is the session's.
        await client.get('/cabinet/account');
        return client.post(path, fields, csrf === undefined ? {} : { csrf });
      };

      it(`route ${index + 1}: no session, another partner, no CSRF token: refused and unchanged; the owner succeeds`, async () => {
        const { method, path, ownerStatus, namesResource } = route();
        const before = await target.state();
        const anonymous = await send(target.anonymous());
        assert.equal(anonymous.statusCode, 303, `${method} ${path} without a session: ${anonymous.statusCode}`);
        assert.equal(anonymous.headers.location, '/cabinet/login');
        assert.deepEqual(await target.state(), before, `${method} ${path} without a session changed something`);

        const other = await send(target.other());
        // A page naming the owner's resource is a 404 page; a form on it answers 303 (docs/contract.md
        // §9.1) to a page of the other partner's own that says there is no such thing of theirs.
        const shown = [other];
        if (namesResource && method === 'GET') {
          assert.equal(other.statusCode, 404, `${method} ${path} by another partner: ${other.statusCode}`);
        } else if (namesResource) {
          assert.equal(other.statusCode, 303, `${method} ${path} by another partner: ${other.statusCode}`);
          const landed = await target.other().get(String(other.headers.location));
          assert.equal(landed.statusCode, 200, `${method} ${path} by another partner led to ${String(other.headers.location)}`);
          assert.match(landed.body, /class="problem" role="alert">[^<]*(no [a-z ]+ of yours|No such)/, `${method} ${path} by another partner: the page says there is none`);
          shown.push(landed);
        }
        // What the request itself carried may come back (a search box keeps its text): it tells nothing.
        for (const marker of target.ownerMarkers().filter((text) => !path.includes(text))) {
          for (const res of shown) assert.ok(!res.body.includes(marker), `${method} ${path} showed another partner the owner's ${marker}`);
        }
        assert.deepEqual(await target.state(), before, `${method} ${path} by another partner changed something`);

        if (method === 'POST') {
          const forged = await send(target.owner(), null);
          assert.equal(forged.statusCode, 403, `${method} ${path} without the CSRF token: ${forged.statusCode}`);
          const wrong = await send(target.owner(), target.other().csrf ?? 'x');
          assert.equal(wrong.statusCode, 403, `${method} ${path} with another session's CSRF token: ${wrong.statusCode}`);
          assert.deepEqual(await target.state(), before, `${method} ${path} without its CSRF token changed something`);
        }

        const owner = await send(target.owner());
        assert.equal(owner.statusCode, ownerStatus, `${method} ${path} by the owner: ${owner.statusCode} ${owner.body.slice(0, 300)}`);
        // Every answer of the cabinet, refusals and redirects too: the strict CSP, the other
        // security headers, and kept by no cache.
        for (const [who, res] of [['no session', anonymous], ['another partner', other], ['the owner', owner]] as const) {
          for (const [header, pattern] of Object.entries(CABINET_HEADERS)) {
            assert.match(String(res.headers[header]), pattern, `${header} of ${method} ${path} for ${who}`);
          }
        }
      });
    }
  });
}
