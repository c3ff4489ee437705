/**
 * The fuzzing machinery shared by test/fuzz/*.test.ts (a few cases per route on every
 * `npm test`) and test/fuzz/run-fuzz.ts (`npm run fuzz`, 10,000+ cases per route).
 *
 * For every route of the app (public, partner, operator, operations, docs) a request generator
 * starts from plausible input and breaks it (arbitraries.ts). Every response must satisfy:
 *
 * 1. never a 5xx;
 * 2. every error (4xx) carries a JSON body with a string `detail` and a `code` of the closed set
 *    whose status is the response's status, and `errors` (docs/contract.md §10.4): a non-empty list of
 *    `{code, field, detail}` with codes of the closed item list (HEAD answers have no body by
 *    definition; the only 3xx are the docs UI's redirects);
 * 3. the status is one the route documents in its OpenAPI response schema
 *    (GET /api/v1/openapi.json), plus 404 and 405 (routing), 413 and 415 on methods that carry
 *    a body, and 429 on rate-limited routes; a request no route took may only be 404 (or 429);
 * 4. a rejected request (any non-2xx) changes no stored state: row counts and checksums of
 *    orders, order_events, deposit_addresses, partners, api_keys,
 *    idempotency_keys, static_prices, currencies (updated_at included), payouts and the
 *    simulator's tables are equal before and after it.
 *
 * Which route answered is read from a response header that a test-only onSend hook adds.
 */
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import { Decimal } from '../../src/domain/money.js';
import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { ERROR_ITEM_CODES, ERROR_STATUS } from '../../src/errors.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import {
  HTTP_METHODS,
  adminAuth,
  anyAuth,
  contentType,
  decimalText,
  encodeQueryText,
  extraHeaders,
  headerValue,
  hostileChar,
  hugeHeaderValue,
  impossibleDate,
  insertChars,
  withHostileChars,
  jsonText,
  junkQuery,
  junkSegment,
  junkText,
  literal,
  nonJsonBody,
  numberLiteral,
  objectBody,
  partnerAuth,
  queryPart,
  remoteAddress,
  signatureChoice,
  type AuthHeaders,
  type Credentials,
} from './arbitraries.js';

/** Cases per route: FUZZ_RUNS, else a small number so `npm test` stays quick. */
export function fuzzRuns(fallback: number): number {
  const runs = Number(process.env.FUZZ_RUNS);
  return Number.isInteger(runs) && runs > 0 ? runs : fallback;
}

/** FUZZ_SEED replays the run that a failure report names. */
export function fuzzSeed(): number | undefined {
  const seed = Number(process.env.FUZZ_SEED);
  return process.env.FUZZ_SEED !== undefined && Number.isInteger(seed) ? seed : undefined;
}

const ROUTE_HEADER = 'x-fuzz-route';
const SCHEMA_HEADER = 'x-fuzz-schema-statuses';
/** Not rate limited (rate-limit.ts): the operator API and the infrastructure endpoints. */
const UNLIMITED = ['/healthz', '/readyz', '/metrics'];
const BODYLESS_METHODS = new Set(['GET', 'HEAD']);

const ETH_ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const BTC_ADDRESS = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const XRP_ADDRESS = 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh';
/** Valid recipient addresses by network (others get an address of the wrong format: 400). */
const TRON_ADDRESS = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const ADDRESS_BY_NETWORK: Readonly<Record<string, string>> = {
  BTC: BTC_ADDRESS,
  ETH: ETH_ADDRESS,
  ERC20: ETH_ADDRESS,
  BEP20: ETH_ADDRESS.toLowerCase(),
  XRP: XRP_ADDRESS,
  LTC: 'LgfapHEPhZbRF9pMd5WPT35hFXcZS1USrW',
  DOGE: 'DDWUYQ3GfMDj8hkx8cbnAMYkTzzAunAQxg',
  TRX: TRON_ADDRESS,
  TRC20: TRON_ADDRESS,
  SOL: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  XLM: 'GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7',
  TON: 'EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N',
};

interface CurrencyRow {
  id: string;
  coin: string;
  network: string;
  min_amount: string;
  is_memo: boolean;
}

type Auth = 'none' | 'optional' | 'partner' | 'admin';

export interface RouteSpec {
  method: string;
  /** Fastify's template, e.g. /admin/v1/partners/:id. */
  path: string;
  auth: Auth;
  /** Plausible values of path parameters (already URL-encoded where needed). */
  params?: Record<string, fc.Arbitrary<string>>;
  /** Plausible query fields (raw text, encoded on the way). */
  query?: Fields;
  /** Plausible JSON body fields, as JSON source text. */
  body?: Fields;
  /** Plausible extra headers of the route (Idempotency-Key). */
  headers?: Record<string, fc.Arbitrary<string>>;
  /** At most this many cases a run, for a route whose every accepted case is costly (the backup copies the whole store). */
  maxRuns?: number;
}

/** A route's fields and a generator of consistent plausible values for them. */
export interface Fields {
  names: string[];
  plausible: fc.Arbitrary<Readonly<Record<string, string>>>;
}

/** Fields whose plausible values are independent of each other. */
export function fields(arbitraries: Record<string, fc.Arbitrary<string>>): Fields {
  return { names: Object.keys(arbitraries), plausible: fc.record(arbitraries) };
}

export interface FuzzRequest extends InjectOptions {
  method: InjectOptions['method'] & string;
  url: string;
  headers: Record<string, string | string[]>;
  remoteAddress: string;
}

interface Snapshot {
  [table: string]: string;
}

export interface Stats {
  cases: number;
  byStatus: Map<number, number>;
}

/** One app with partners, keys, orders and currencies to aim at, and the invariant checks. */
/** Tables whose rows a request may change (all of them: the snapshot covers more). */
const WATCHED_TABLES = [
  'orders', 'order_events', 'deposit_addresses', 'partners', 'api_keys', 'idempotency_keys',
  'static_prices', 'currencies', 'payouts', 'simulated_deposits', 'simulator_faults', 'simulated_sends',
  'webhook_endpoints', 'webhook_events', 'webhook_deliveries',
];

export class FuzzContext {
  /** The last full snapshot, and the write counter when it was taken. */
  private lastSnapshot: Snapshot | undefined;
  private lastWrites = -1;
  private constructor(
    readonly t: TestApp,
    readonly creds: Credentials,
    readonly ids: {
      partnerId: string;
      victimId: string;
      victimKeyIds: string[];
      orderId: string;
      shortId: string;
      otherOrderId: string;
      /** The fuzz partner's order's status link token (docs/contract.md §10.10). */
      statusToken: string;
      /** Orders of the fuzz partner made with its sandbox key (POST /partner/sandbox/orders/{id}/deposit). */
      sandboxOrderIds: string[];
      /** Webhook endpoints (issue 15): two of the fuzz partner's, one of the victim's, and one delivery of each. */
      webhookIds: string[];
      victimWebhookId: string;
      deliveryIds: string[];
      currencyIds: string[];
      currencies: CurrencyRow[];
      coins: string[];
      networks: string[];
    },
    /** "METHOD /path/{param}" → documented statuses, from GET /api/v1/openapi.json. */
    readonly documented: ReadonlyMap<string, ReadonlySet<number>>,
  ) {}

  /** `configure` adds test routes (the harness's own tests use it to prove the checks bite). */
  static async create(configure?: (app: TestApp['app']) => void): Promise<FuzzContext> {
    const t = await buildTestApp({
      env: { WORKER: 'off' },
      configure(app) {
        configure?.(app);
        // Test-only: which route answered, and what its schema documents (for hidden routes).
        app.addHook('onSend', async (request, reply, payload) => {
          const options = request.routeOptions;
          if (options.url !== undefined) {
            reply.header(ROUTE_HEADER, `${String(options.method)} ${options.url}`);
            reply.header(SCHEMA_HEADER, Object.keys(options.schema?.response ?? {}).join(','));
          }
          return payload;
        });
      },
    });
    const budget = { rate_limit_per_minute: 1_000_000 };
    const partner = await t.createPartner({ name: 'Fuzz Partner', ...budget });
    const victim = await t.createPartner({ name: 'Victim Partner', ...budget });
    const suspended = await t.createPartner({ name: 'Suspended Partner', ...budget });
    await t.admin('PATCH', `/admin/v1/partners/${suspended.id}`, { status: 'suspended' });
    const revoked = await t.admin('POST', `/admin/v1/partners/${partner.id}/keys`);
    const revokedKey = revoked.json<{ api_key: string; key_id: string }>();
    // A client key (docs/contract.md §10.9): every route either serves it or answers 403 scope.
    const clientKey = (await t.admin('POST', `/admin/v1/partners/${partner.id}/keys`, { scope: 'client' })).json<{ api_key: string }>();
    await t.admin('DELETE', `/admin/v1/keys/${revokedKey.key_id}`);
    const victimKeyIds = [victim.keyId];
    for (let i = 0; i < 3; i++) {
      const res = await t.admin('POST', `/admin/v1/partners/${victim.id}/keys`);
      victimKeyIds.push(res.json<{ key_id: string }>().key_id);
    }
    const order = await createOrder(t, partner.apiKey);
    const otherOrder = await createOrder(t, victim.apiKey);
    const sandboxKey = (await t.admin('POST', `/admin/v1/partners/${partner.id}/keys`, { sandbox: true })).json<{ api_key: string }>();
    const sandboxOrderIds: string[] = [];
    for (let i = 0; i < 3; i++) sandboxOrderIds.push((await createOrder(t, sandboxKey.api_key)).id);
    const addWebhook = async (apiKey: string): Promise<string> => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/partner/webhooks',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        payload: JSON.stringify({ url: 'http://127.0.0.1:9/fuzz' }),
      });
      return res.json<{ id: string }>().id;
    };
    const webhookIds = [await addWebhook(partner.apiKey), await addWebhook(partner.apiKey)];
    const victimWebhookId = await addWebhook(victim.apiKey);
    const deliveryIds: string[] = [];
    for (const [id, apiKey] of [[webhookIds[0], partner.apiKey], [victimWebhookId, victim.apiKey]] as const) {
      const ping = await t.app.inject({ method: 'POST', url: `/api/v1/partner/webhooks/${id ?? ''}/test`, headers: { 'x-api-key': apiKey } });
      deliveryIds.push(ping.json<{ id: string }>().id);
    }
    // Amounts as text, exactly as written (toJson writes exact decimals).
    const currencies = JSON.parse(
      (await t.admin('GET', '/admin/v1/currencies')).body.replace(/"min_amount":([0-9.eE+-]+)/g, '"min_amount":"$1"'),
    ) as CurrencyRow[];
    type Paths = { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    // The partner document and the operator one (behind the admin token) together.
    const partnerDocument = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json<Paths>();
    const operatorDocument = (await t.admin('GET', '/admin/v1/openapi.json')).json<Paths>();
    const openapi: Paths = { paths: { ...partnerDocument.paths, ...operatorDocument.paths } };
    // Test database only: a row-level write counter, so the full snapshot (slow) is taken only
    // after a request that wrote something; a request that wrote nothing changed nothing.
    const db = t.db.handle.db;
    await sql`create sequence fuzz_writes`.execute(db);
    await sql`create function fuzz_note_write() returns trigger language plpgsql as $$
      begin perform nextval('fuzz_writes'); return null; end $$`.execute(db);
    for (const table of WATCHED_TABLES) {
      await sql`create trigger fuzz_writes after insert or update or delete on ${sql.table(table)}
        for each row execute function fuzz_note_write()`.execute(db);
    }
    const documented = new Map<string, Set<number>>();
    for (const [path, operations] of Object.entries(openapi.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        documented.set(`${method.toUpperCase()} ${path}`, new Set(Object.keys(operation.responses).map(Number)));
      }
    }
    return new FuzzContext(
      t,
      { apiKey: partner.apiKey, revokedKey: revokedKey.api_key, suspendedKey: suspended.apiKey, clientKey: clientKey.api_key, adminToken: t.adminToken },
      {
        partnerId: partner.id,
        victimId: victim.id,
        victimKeyIds,
        orderId: order.id,
        shortId: order.short_id,
        otherOrderId: otherOrder.id,
        statusToken: order.status_url.slice(order.status_url.lastIndexOf('/') + 1),
        sandboxOrderIds,
        webhookIds,
        victimWebhookId,
        deliveryIds,
        currencyIds: currencies.map((row) => row.id),
        currencies,
        coins: [...new Set(currencies.map((row) => row.coin))],
        networks: [...new Set(currencies.map((row) => row.network))],
      },
      documented,
    );
  }

  close(): Promise<void> {
    return this.t.close();
  }

  /** The statuses a response may have, given the route that answered it. */
  allowedStatuses(method: string, res: LightMyRequestResponse): { route: string; allowed: Set<number> } {
    const routeHeader = res.headers[ROUTE_HEADER];
    if (typeof routeHeader !== 'string') return { route: '(no route)', allowed: new Set([404, 405, 429]) };
    const [routeMethod = '', url = ''] = routeHeader.split(' ');
    const openapiPath = url.replace(/:([A-Za-z_]+)/g, '{$1}');
    const lookupMethod = routeMethod === 'HEAD' ? 'GET' : routeMethod;
    let allowed = this.documented.get(`${lookupMethod} ${openapiPath}`);
    if (allowed === undefined) {
      // A route hidden from the OpenAPI document (docs, icons, the document itself): its schema.
      const fromSchema = String(res.headers[SCHEMA_HEADER] ?? '')
        .split(',')
        .filter((s) => s !== '')
        .map(Number);
      allowed = new Set(fromSchema);
    }
    const result = new Set([...allowed, 405]);
    // A route without any response schema (the docs UI and its assets, served by
    // @fastify/swagger-ui): nothing is documented, so what a static file server answers is
    // allowed: a success or redirect, 400 for a malformed file path, 404 for a missing file.
    if (allowed.size === 0) {
      for (let s = 200; s < 400; s++) result.add(s);
      result.add(400);
      result.add(404);
    }
    if (!BODYLESS_METHODS.has(method.toUpperCase())) {
      result.add(413);
      result.add(415);
    }
    if (!url.startsWith('/admin/') && !UNLIMITED.includes(url)) result.add(429);
    // Never a 5xx, documented or not.
    for (const status of result) if (status >= 500) result.delete(status);
    return { route: routeHeader, allowed: result };
  }

  async snapshot(): Promise<Snapshot> {
    const checksum = (table: string, order: string) =>
      sql<string>`(select md5(coalesce(string_agg(t::text, '|' order by ${sql.raw(order)}), '')) from ${sql.table(table)} t)`;
    const count = (table: string) => sql<string>`(select count(*)::text from ${sql.table(table)})`;
    const { rows } = await sql<Snapshot>`select
      ${count('orders')} as orders,
      (select coalesce(max(updated_at)::text, '') || '/' || coalesce(sum(version), 0)::text || '/' || count(distinct status)::text from orders) as orders_state,
      ${count('order_events')} as order_events,
      ${count('deposit_addresses')} as deposit_addresses,
      (select count(*)::text from deposit_addresses where order_id is not null) as deposit_addresses_assigned,
      ${checksum('partners', 't.id')} as partners,
      ${checksum('api_keys', 't.key_id')} as api_keys,
      ${count('idempotency_keys')} as idempotency_keys,
      ${checksum('static_prices', 't.symbol')} as static_prices,
      ${checksum('currencies', 't.id')} as currencies,
      (select coalesce(max(updated_at)::text, '') from currencies) as currencies_updated_at,
      ${count('payouts')} as payouts,
      ${checksum('simulated_deposits', 't.order_id')} as simulated_deposits,
      ${checksum('simulator_faults', 't::text')} as simulator_faults,
      ${count('simulated_sends')} as simulated_sends
    `.execute(this.t.db.handle.db);
    const row = rows[0];
    assert.ok(row !== undefined);
    return row;
  }

  /** Sends one request and checks every invariant; returns the response for statistics. */
  private async writes(): Promise<number> {
    const { rows } = await sql<{ n: string }>`select (last_value * (case when is_called then 1 else 0 end))::text as n from fuzz_writes`.execute(this.t.db.handle.db);
    return Number(rows[0]?.n ?? -1);
  }

  async check(request: FuzzRequest): Promise<LightMyRequestResponse> {
    if (this.lastSnapshot === undefined || this.lastWrites < 0) {
      this.lastWrites = await this.writes();
      this.lastSnapshot = await this.snapshot();
    }
    const before = this.lastSnapshot;
    const logged = this.t.logs.length;
    const res = await this.t.app.inject(request);
    const writes = await this.writes();
    // No row written, inserted or deleted since the last snapshot: the state is the same.
    const after = writes === this.lastWrites ? before : await this.snapshot();
    this.lastSnapshot = after;
    this.lastWrites = writes;
    const what = `${request.method} ${request.url.slice(0, 300)} → ${res.statusCode} ${res.body.slice(0, 300)}`;

    // A 5xx says what the server logged for it: a random case's stored state is gone with the run.
    if (res.statusCode >= 500) {
      const errors = this.t.logs.slice(logged).filter((line) => /"level":(50|60)/.test(line));
      assert.fail(`5xx: ${what}\nserver log: ${errors.join('').slice(0, 2000)}`);
    }
    const { route, allowed } = this.allowedStatuses(request.method, res);
    assert.ok(allowed.has(res.statusCode), `status ${res.statusCode} is not documented for ${route} (allowed ${[...allowed].filter((s) => s < 200 || s >= 400).join(',')}): ${what}`);
    const success = res.statusCode >= 200 && res.statusCode < 300;
    // Errors (4xx) carry the envelope; a redirect (3xx, docs only) and HEAD answers have no body.
    if (res.statusCode >= 400 && request.method.toUpperCase() !== 'HEAD') {
      assert.match(String(res.headers['content-type']), /^application\/json/, `non-JSON error: ${what}`);
      let body: unknown;
      assert.doesNotThrow(() => (body = JSON.parse(res.body)), `error body is not JSON: ${what}`);
      const { detail, code } = (body ?? {}) as { detail?: unknown; code?: unknown };
      assert.equal(typeof detail, 'string', `error without a string detail: ${what}`);
      assert.equal(typeof code, 'string', `error without a code: ${what}`);
      assert.equal(ERROR_STATUS[code as keyof typeof ERROR_STATUS], res.statusCode, `code ${String(code)} does not match the status: ${what}`);
      assertErrorItems(body, what);
    }
    if (!success) {
      const changed = Object.keys(after).filter((table) => after[table] !== before[table]);
      assert.deepEqual(changed, [], `a rejected request changed stored state (${changed.join(', ')}): ${what}`);
    }
    return res;
  }

  /** Runs `runs` generated requests against one route; returns the status histogram. */
  async fuzzRoute(spec: RouteSpec, runs: number, seed?: number): Promise<Stats> {
    const stats: Stats = { cases: 0, byStatus: new Map() };
    await fc.assert(
      fc.asyncProperty(requestFor(spec, this), async (request) => {
        const res = await this.check(request);
        stats.cases++;
        stats.byStatus.set(res.statusCode, (stats.byStatus.get(res.statusCode) ?? 0) + 1);
      }),
      { numRuns: Math.min(runs, spec.maxRuns ?? runs), ...(seed === undefined ? {} : { seed }), endOnFailure: process.env.FUZZ_SHRINK !== '1' },
    );
    return stats;
  }

  /** Requests no route was written for: random methods and paths. */
  async fuzzUnrouted(runs: number, seed?: number): Promise<Stats> {
    const stats: Stats = { cases: 0, byStatus: new Map() };
    const prefix = fc.constantFrom('', '/api', '/api/v1', '/api/v2', '/admin', '/admin/v1', '/api/v1/partner', '/static', '/docs', '/API/V1');
    const path = fc
      .tuple(prefix, fc.array(junkSegment, { maxLength: 4 }), fc.option(junkQuery, { nil: undefined }))
      .map(([head, segments, query]) => `${head}/${segments.join('/')}${query === undefined ? '' : `?${query}`}`);
    const request = fc.record({
      method: fc.constantFrom(...HTTP_METHODS),
      url: path,
      auth: anyAuth(this.creds),
      extra: extraHeaders,
      contentType,
      payload: fc.option(fc.oneof(jsonText, nonJsonBody), { nil: undefined }),
      remoteAddress,
    });
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const headers: Record<string, string | string[]> = { ...r.extra, ...r.auth };
        if (r.contentType !== undefined) headers['content-type'] = r.contentType;
        const res = await this.check({
          method: r.method,
          url: r.url,
          headers,
          remoteAddress: r.remoteAddress,
          ...(r.payload === undefined ? {} : { payload: r.payload }),
        });
        stats.cases++;
        stats.byStatus.set(res.statusCode, (stats.byStatus.get(res.statusCode) ?? 0) + 1);
      }),
      { numRuns: runs, ...(seed === undefined ? {} : { seed }), endOnFailure: process.env.FUZZ_SHRINK !== '1' },
    );
    return stats;
  }
}

const ITEM_CODES: ReadonlySet<string> = new Set(ERROR_ITEM_CODES);
const ITEM_KEYS: ReadonlySet<string> = new Set(['code', 'field', 'detail', 'min_amount', 'max_amount', 'min_amount_to', 'max_amount_to']);

/** An error body's `errors` (docs/contract.md §10.4): every item `{code, field, detail}` of the closed list, amount limits at most. */
function assertErrorItems(body: unknown, what: string): void {
  const items = (body as { errors?: unknown }).errors;
  assert.ok(Array.isArray(items) && items.length > 0, `error without errors: ${what}`);
  for (const item of items as Record<string, unknown>[]) {
    assert.ok(ITEM_CODES.has(String(item.code)), `item code ${String(item.code)} is not in the closed list: ${what}`);
    assert.ok(item.field === null || typeof item.field === 'string', `item field is not a string or null: ${what}`);
    assert.equal(typeof item.detail, 'string', `item without a string detail: ${what}`);
    for (const key of Object.keys(item)) assert.ok(ITEM_KEYS.has(key), `undocumented item field ${key}: ${what}`);
    if (String(item.code).startsWith('amount_above') || String(item.code).startsWith('amount_below')) {
      for (const limit of ['min_amount', 'max_amount', 'min_amount_to', 'max_amount_to']) {
        assert.equal(typeof item[limit], 'number', `amount item without ${limit}: ${what}`);
      }
    }
  }
}

async function createOrder(t: TestApp, apiKey: string): Promise<{ id: string; short_id: string; status_url: string }> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/partner/orders',
    headers: { authorization: `Bearer ${apiKey}` },
    payload: {
      coin_from: 'BTC', network_from: 'BTC', coin_to: 'ETH', network_to: 'ETH',
      amount_from: 0.01, rate_type: 'float', recipient_address: ETH_ADDRESS,
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

const encode = (text: string) => encodeURIComponent(text.replace(/[\ud800-\udfff]/g, 'x'));

/** The whole request generator of one route. */
export function requestFor(spec: RouteSpec, ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const method = fc.oneof({ weight: 9, arbitrary: fc.constant(spec.method) }, { weight: 1, arbitrary: fc.constantFrom(...HTTP_METHODS) });

  const segments = spec.path.split('/').map((segment) => {
    if (segment === '*') return fc.oneof(fc.constantFrom('swagger-ui.css', 'index.css', 'favicon-32x32.png', 'swagger-ui-bundle.js', 'oauth2-redirect.html', 'index.html'), junkSegment);
    if (!segment.startsWith(':')) return fc.constant(segment);
    const plausible = spec.params?.[segment.slice(1)] ?? fc.constant('x');
    return fc.oneof({ weight: 7, arbitrary: plausible }, { weight: 3, arbitrary: junkSegment });
  });
  const pathMutation = fc.oneof(
    { weight: 12, arbitrary: fc.constant((path: string) => path) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        (path: string) => `${path}/`,
        (path: string) => `${path}//`,
        (path: string) => path.replace('/v1/', '//v1/'),
        (path: string) => path.toUpperCase(),
        (path: string) => `${path}/extra`,
        (path: string) => path.slice(0, path.lastIndexOf('/')),
        (path: string) => `${path}%00`,
        (path: string) => `${path};a=b`,
        (path: string) => `${path}#fragment`,
        (path: string) => path.replace('/v1/', '/./v1/'),
        (path: string) => path.replace('/v1/', '/v1/../v1/'),
      ),
    },
  );
  const path = fc.tuple(fc.tuple(...segments), pathMutation).map(([parts, mutate]) => {
    const mutated = mutate(parts.join('/'));
    return mutated.startsWith('/') ? mutated : `/${mutated}`;
  });

  type QueryForm = (name: string, value: string) => string;
  const queryFields = (spec.query?.names ?? []).map(() =>
    fc.oneof(
      { weight: 40, arbitrary: fc.constant<QueryForm>((name, value) => `${name}=${encode(value)}`) },
      // Issue 26.8: the plausible value with NUL, other controls or unpaired surrogates in it.
      {
        weight: 4,
        arbitrary: fc
          .array(fc.tuple(hostileChar, fc.nat()), { minLength: 1, maxLength: 3 })
          .map<QueryForm>((inserts) => (name, value) => `${name}=${encodeQueryText(insertChars(value, inserts))}`),
      },
      { weight: 2, arbitrary: fc.constant<QueryForm>(() => '') },
      { weight: 1, arbitrary: queryPart.map<QueryForm>((junk) => (name) => `${name}=${junk}`) },
      { weight: 1, arbitrary: queryPart.map<QueryForm>((junk) => (name, value) => `${name}=${encode(value)}&${name}=${junk}`) },
      { weight: 1, arbitrary: fc.constant<QueryForm>((name) => name) },
    ),
  );
  const query = fc
    .tuple(
      spec.query?.plausible ?? fc.constant({}),
      fc.tuple(...queryFields),
      fc.oneof({ weight: 6, arbitrary: fc.constant('') }, { weight: 1, arbitrary: junkQuery }),
      fc.boolean(),
    )
    .map(([values, forms, junk, withMark]) => {
      const names = spec.query?.names ?? [];
      // A name the plausible values leave out is not sent (amount or amount_to: one of the two).
      const parts = forms.map((form, i) => {
        const value = (values as Record<string, string>)[names[i] ?? ''];
        return value === undefined ? '' : form(names[i] ?? '', value);
      });
      const text = [...parts, junk].filter((part) => part !== '').join('&');
      return text === '' ? (withMark ? '?' : '') : `?${text}`;
    });

  const auth: fc.Arbitrary<AuthHeaders> =
    spec.auth === 'admin' ? adminAuth(ctx.creds) : spec.auth === 'none' ? anyAuth(ctx.creds) : partnerAuth(ctx.creds);

  const routeHeaders = fc.tuple(
    ...Object.entries(spec.headers ?? {}).map(([name, plausible]) =>
      fc.oneof(
        { weight: 3, arbitrary: fc.constant<[string, string] | undefined>(undefined) },
        { weight: 3, arbitrary: plausible.map<[string, string]>((value) => [name, value]) },
        { weight: 1, arbitrary: fc.oneof(headerValue, hugeHeaderValue).map<[string, string]>((value) => [name, value]) },
      ),
    ),
  );

  const hasBody = spec.body !== undefined;
  const object = objectBody(spec.body?.plausible ?? fc.constant({}), spec.body?.names ?? []);
  const bodyArb: fc.Arbitrary<string | Buffer | undefined> = fc.oneof(
    { weight: hasBody ? 24 : 1, arbitrary: object },
    { weight: 2, arbitrary: jsonText },
    { weight: 2, arbitrary: nonJsonBody },
    { weight: hasBody ? 1 : 0, arbitrary: object.map((text) => text.slice(0, Math.floor(text.length / 2))) },
    { weight: 1, arbitrary: fc.constant('') },
    // Around the 64 KiB limit, on both sides.
    { weight: 1, arbitrary: fc.integer({ min: 64 * 1024 - 16, max: 64 * 1024 + 16 }).map((n) => `{"a":"${'x'.repeat(n)}"}`) },
    { weight: hasBody || BODYLESS_METHODS.has(spec.method) ? 3 : 12, arbitrary: fc.constant(undefined) },
  );

  return fc
    .record({
      method,
      path,
      query,
      auth,
      signature: signatureChoice,
      routeHeaders,
      extra: fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: extraHeaders }),
      contentType,
      body: bodyArb,
      lieAboutLength: fc.oneof({ weight: 30, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('0', '1', '99999', 'abc', '-1') }),
      remoteAddress,
    })
    .map((r) => {
      const headers: Record<string, string | string[]> = { ...r.extra, ...r.auth };
      for (const entry of r.routeHeaders) if (entry !== undefined) headers[entry[0]] = entry[1];
      if (r.body !== undefined && r.contentType !== undefined) headers['content-type'] = r.contentType;
      if (r.signature.kind === 'valid') headers['x-signature'] = sign(ctx.creds.apiKey, r.body ?? '');
      if (r.signature.kind === 'junk') headers['x-signature'] = r.signature.value;
      if (r.lieAboutLength !== undefined && r.body !== undefined) headers['content-length'] = r.lieAboutLength;
      return {
        method: r.method,
        url: `${r.path}${r.query}`,
        headers,
        remoteAddress: r.remoteAddress,
        ...(r.body === undefined ? {} : { payload: r.body }),
      };
    });
}

function sign(apiKey: string, body: string | Buffer): string {
  return createHmac('sha256', apiKey.slice(apiKey.indexOf('.') + 1)).update(body).digest('hex');
}

/** Every route of the app with plausible input to start from. */
export function routeSpecs(ctx: FuzzContext): RouteSpec[] {
  const { ids } = ctx;
  const coin = fc.oneof(fc.constantFrom(...ids.coins), fc.constantFrom(...ids.coins).map((c) => c.toLowerCase()), fc.constantFrom('XYZ', 'B', 'BTCBTCBTCBTCB'));
  const randomUuid = fc.uuid().map(String);
  const partnerIds = fc.oneof(fc.constantFrom(ids.victimId, ids.victimId.toUpperCase()), randomUuid);
  const orderIds = fc.oneof(fc.constantFrom(ids.orderId, ids.otherOrderId, ids.orderId.toUpperCase()), randomUuid);
  const currencyIds = fc.oneof(fc.constantFrom(...ids.currencyIds), randomUuid);
  const amountLiteral = fc.oneof({ weight: 4, arbitrary: decimalText }, { weight: 1, arbitrary: numberLiteral }, { weight: 1, arbitrary: literal(decimalText) });
  const bool = fc.oneof({ weight: 5, arbitrary: fc.constantFrom('true', 'false') }, { weight: 1, arbitrary: fc.constantFrom('"true"', '1', '0', 'null') });
  const integerLiteral = (min: number, max: number) => fc.oneof({ weight: 5, arbitrary: fc.integer({ min, max }).map(String) }, { weight: 1, arbitrary: numberLiteral });
  const text = (max: number) =>
    fc.oneof(
      { weight: 3, arbitrary: literal(fc.string({ minLength: 1, maxLength: max })) },
      { weight: 1, arbitrary: literal(junkText) },
      { weight: 1, arbitrary: literal(fc.string({ minLength: 0, maxLength: Math.min(max, 40) }).chain(withHostileChars)) },
    );
  const solAddress = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => base58.encode(bytes));
  const dateTime = fc.oneof(
    fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }).map((d) => d.toISOString()),
    fc.constantFrom('2026-01-01T00:00:00Z', '0000-01-01T00:00:00Z', '9999-12-31T23:59:60Z', '2026-02-30T00:00:00Z', '2026-01-01T00:00:00+14:00', '0001-01-01T00:00:00+01:00', '2026-01-01t00:00:00z', '2026-01-01'),
    // Issue 26.8: dates that look right and are no time (2024-13-45, 24:00, …), or carry a NUL.
    impossibleDate,
  );
  const limit = fc.oneof(fc.integer({ min: -5, max: 600 }).map(String), numberLiteral);

  // A pair of catalog rows (so requests get past "unknown coin"), an amount near the source's
  // limits, and a recipient address of the destination's format where one is known.
  const pair = fc.record({
    from: fc.constantFrom(...ids.currencies),
    to: fc.constantFrom(...ids.currencies),
    factor: fc.constantFrom('0.5', '1', '1.01', '2', '10', '1000', '1000000', '1000000000', '0.000001'),
    lower: fc.boolean(),
    omitNetworks: fc.boolean(),
  });
  const amountOf = (min: string, factor: string) => new Decimal(min).mul(factor).toFixed();
  /**
   * How an amount is spelt (docs/contract.md §10.5): mostly as the decimal it is; now and then with an
   * exponent or a digit past the coin's decimals (both 400 amount_invalid).
   */
  const spelling = fc.constantFrom<(amount: string) => string>(
    (amount) => amount,
    (amount) => amount,
    (amount) => amount,
    (amount) => amount,
    (amount) => new Decimal(amount).toExponential(),
    (amount) => `${amount}${amount.includes('.') ? '' : '.'}000000000000000001`,
  );
  const cased = (text: string, lower: boolean) => (lower ? text.toLowerCase() : text);
  // v1.1 reverse quotes: amount_to (near coin_to's limits) instead of amount, now and then both.
  const amountSide = fc.constantFrom('amount', 'amount', 'amount_to', 'both');
  const ratesQuery: Fields = {
    names: ['coin_from', 'coin_to', 'network_from', 'network_to', 'amount', 'amount_to', 'rate_type'],
    plausible: fc.tuple(pair, fc.constantFrom('float', 'fixed', 'float', 'fixed', 'FIXED', ''), amountSide, spelling).map(([p, rateType, side, spell]) => ({
      coin_from: cased(p.from.coin, p.lower),
      coin_to: p.to.coin,
      network_from: p.from.network,
      network_to: cased(p.to.network, p.lower),
      ...(side === 'amount_to' ? {} : { amount: spell(amountOf(p.from.min_amount, p.factor)) }),
      ...(side === 'amount' ? {} : { amount_to: spell(amountOf(p.to.min_amount, p.factor)) }),
      rate_type: rateType,
    })),
  };
  // v1.2 order metadata (docs/contract.md §10.8): a few external_ids reused (409 external_id_conflict), and
  // maps around their bounds (10 keys, keys of 40 characters, values of 64), with values that
  // are no string, keys JSON parsers treat apart, and refused characters in keys and values.
  const externalId = fc.oneof(
    { weight: 3, arbitrary: fc.constant('null') },
    { weight: 3, arbitrary: literal(fc.constantFrom('ext-1', 'ext-2', 'EXT-1', 'x'.repeat(64), 'x'.repeat(65), '')) },
    { weight: 3, arbitrary: text(70) },
    { weight: 1, arbitrary: fc.oneof(numberLiteral, fc.constantFrom('[]', '{}', 'true', '["ext-1"]')) },
  );
  const metadataKey = fc.oneof(
    { weight: 6, arbitrary: fc.string({ maxLength: 45 }) },
    { weight: 1, arbitrary: fc.constantFrom('', '__proto__', 'constructor', 'prototype', 'k'.repeat(40), 'k'.repeat(41), 'é'.repeat(40)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 10 }).chain(withHostileChars) },
  );
  const metadataValue = fc.oneof(
    { weight: 6, arbitrary: literal(fc.string({ maxLength: 70 })) },
    { weight: 1, arbitrary: literal(fc.constantFrom('v'.repeat(64), 'v'.repeat(65), '💩'.repeat(64))) },
    { weight: 1, arbitrary: literal(fc.string({ maxLength: 10 }).chain(withHostileChars)) },
    { weight: 1, arbitrary: fc.oneof(numberLiteral, fc.constantFrom('null', 'true', '[]', '{}', '{"a":"b"}', '["v"]')) },
  );
  const metadata = fc.oneof(
    { weight: 3, arbitrary: fc.constant('null') },
    {
      weight: 6,
      arbitrary: fc
        .array(fc.tuple(metadataKey, metadataValue), { maxLength: 12 })
        .map((entries) => `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`),
    },
    { weight: 1, arbitrary: fc.constantFrom('[]', '"text"', '1', '{"a":{"b":"c"}}', '[{"a":"b"}]') },
  );
  const orderBody: Fields = {
    names: ['coin_from', 'network_from', 'coin_to', 'network_to', 'amount_from', 'amount_to', 'rate_type', 'recipient_address', 'recipient_address_tag', 'refund_address', 'quote_id', 'external_id', 'metadata'],
    plausible: fc
      .tuple(
        pair,
        fc.constantFrom('float', 'fixed'),
        fc.oneof({ weight: 9, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
        fc.boolean(),
        fc.oneof({ weight: 9, arbitrary: fc.constant('null') }, { weight: 1, arbitrary: literal(randomUuid) }),
        fc.constantFrom('12345', '12345', '0', '4294967296', 'memo text', ''),
        amountSide,
        spelling,
        // v1.2: an amount as a JSON number (v1) or a decimal string, about half each.
        fc.boolean(),
        fc.tuple(externalId, metadata),
      )
      .map(([p, rateType, withTag, withRefund, quoteId, tag, side, spell, asString, [external, map]]) => {
        const amount = (value: string) => (asString ? JSON.stringify(spell(value)) : spell(value));
        return {
          coin_from: JSON.stringify(cased(p.from.coin, p.lower)),
          network_from: JSON.stringify(p.from.network),
          coin_to: JSON.stringify(p.to.coin),
          network_to: JSON.stringify(cased(p.to.network, p.lower)),
          ...(side === 'amount_to' ? {} : { amount_from: amount(amountOf(p.from.min_amount, p.factor)) }),
          ...(side === 'amount' ? {} : { amount_to: amount(amountOf(p.to.min_amount, p.factor)) }),
          rate_type: JSON.stringify(rateType),
          recipient_address: JSON.stringify(ADDRESS_BY_NETWORK[p.to.network] ?? ETH_ADDRESS),
          recipient_address_tag: withTag || p.to.is_memo ? JSON.stringify(tag) : 'null',
          refund_address: withRefund ? JSON.stringify(ADDRESS_BY_NETWORK[p.from.network] ?? BTC_ADDRESS) : 'null',
          quote_id: quoteId,
          external_id: external,
          metadata: map,
        };
      }),
  };

  return [
    // Partner API and its document.
    { method: 'GET', path: '/api/v1/currencies', auth: 'optional' },
    { method: 'GET', path: '/api/v1/partner/account', auth: 'partner' },
    {
      method: 'GET',
      path: '/api/v1/partner/rates',
      auth: 'optional',
      query: ratesQuery,
    },
    {
      method: 'POST',
      path: '/api/v1/partner/orders',
      auth: 'partner',
      body: orderBody,
      headers: {
        'idempotency-key': fc.oneof(fc.constantFrom('key-1', 'key-2'), fc.uuid().map(String)),
        // v1.2 (docs/contract.md §10.8): addresses of both families, forms isIP refuses (zone, port, octal), junk.
        'x-end-user-ip': fc.oneof(
          { weight: 3, arbitrary: fc.oneof(fc.ipV4(), fc.ipV6()) },
          { weight: 1, arbitrary: fc.ipV4Extended() },
          {
            weight: 1,
            arbitrary: fc.constantFrom('203.0.113.7', '2001:DB8::1', '::ffff:198.51.100.1', '::', 'fe80::1%eth0', '203.0.113.7:443', '1.2.3', '203.0.113.7, 198.51.100.1', '2001:db8::/32'),
          },
        ),
      },
    },
    {
      method: 'GET',
      path: '/api/v1/partner/orders/:order_id',
      auth: 'partner',
      params: { order_id: fc.oneof(orderIds, fc.constantFrom(ids.shortId, ids.shortId.toLowerCase(), 'EX-AAAAAA', 'ex-')) },
    },
    {
      // Ids of no order of this partner only: a stream of a live order stays open (test/streams).
      method: 'GET',
      path: '/api/v1/partner/orders/stream',
      auth: 'partner',
      query: fields({
        ids: fc.oneof(
          fc.array(fc.oneof(fc.constant(ids.otherOrderId), randomUuid, fc.constantFrom('x', '', ids.shortId)), { maxLength: 60 }).map((list) => list.join(',')),
          fc.string({ maxLength: 80 }),
        ),
      }),
    },
    {
      method: 'POST',
      path: '/api/v1/partner/orders/status',
      auth: 'partner',
      body: fields({
        ids: fc
          .array(fc.oneof(literal(fc.constantFrom(ids.orderId, ids.otherOrderId)), literal(randomUuid), literal(fc.constantFrom('x', ids.shortId))), { maxLength: 110 })
          .map((items) => `[${items.join(',')}]`),
      }),
    },
    {
      method: 'GET',
      path: '/api/v1/partner/orders/:order_id/qr.svg',
      auth: 'partner',
      params: { order_id: fc.oneof(orderIds, fc.constantFrom(ids.shortId, ids.shortId.toLowerCase(), 'EX-AAAAAA', 'ex-')) },
    },
    {
      method: 'GET',
      path: '/api/v1/partner/orders',
      auth: 'partner',
      query: fields({
        status: fc.oneof(fc.constantFrom('waiting_deposit', 'completed,refunded', 'expired', 'nope', ',', ''), fc.string({ maxLength: 40 })),
        coin_from: coin,
        coin_to: coin,
        created_after: dateTime,
        created_before: dateTime,
        search: fc.oneof(
          fc.constantFrom(ids.orderId, ids.otherOrderId, ids.shortId, ETH_ADDRESS, BTC_ADDRESS),
          fc.string({ maxLength: 80 }),
          fc.constantFrom(ids.shortId, ETH_ADDRESS, '').chain(withHostileChars),
        ),
        limit,
        cursor: fc.oneof(fc.base64String({ maxLength: 120 }), fc.string({ maxLength: 40 })),
        sandbox: fc.constantFrom('true', 'false', '1', 'yes', ''),
      }),
    },
    {
      // v1.1 sandbox: the partner's own sandbox orders succeed once each (then 409); live,
      // another partner's and unknown orders are 404.
      method: 'POST',
      path: '/api/v1/partner/sandbox/orders/:order_id/deposit',
      auth: 'partner',
      params: { order_id: fc.oneof(fc.constantFrom(...ids.sandboxOrderIds), orderIds, fc.constantFrom(ids.shortId, 'EX-AAAAAA')) },
      body: fields({ amount: fc.oneof(amountLiteral, literal(fc.constantFrom('0.01', '0', '-1', 'abc', '1e30', '1e-2', '0.0000000000000000001'))) }),
    },
    // Order actions (issue 14, docs/contract.md §7.5): the caller's orders (200 once, then 409), another
    // partner's and unknown ones (404); a refund address of some network, a tag, or junk.
    ...(['cancel', 'continue', 'refund'] as const).map(
      (action): RouteSpec => ({
        method: 'POST',
        path: `/api/v1/partner/orders/:order_id/${action}`,
        auth: 'partner',
        params: { order_id: fc.oneof(orderIds, fc.constantFrom(ids.shortId, ids.shortId.toLowerCase(), 'EX-AAAAAA', ...ids.sandboxOrderIds)) },
        body: fields({ note: text(20) }),
      }),
    ),
    {
      method: 'PUT',
      path: '/api/v1/partner/orders/:order_id/refund-address',
      auth: 'partner',
      params: { order_id: fc.oneof(orderIds, fc.constantFrom(ids.shortId, 'EX-AAAAAA', ...ids.sandboxOrderIds)) },
      body: {
        names: ['refund_address', 'refund_address_tag'],
        plausible: fc
          .tuple(fc.constantFrom(...Object.values(ADDRESS_BY_NETWORK), ETH_ADDRESS, 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'), fc.constantFrom('12345', '0', '4294967296', 'memo', ''), fc.boolean())
          .map(([address, tag, withTag]) => ({ refund_address: JSON.stringify(address), ...(withTag ? { refund_address_tag: JSON.stringify(tag) } : {}) })),
      },
    },
    // Partner stats (docs/contract.md §7.8): any period, reversed, too long, or not a date.
    { method: 'GET', path: '/api/v1/partner/stats', auth: 'partner', query: fields({ from: dateTime, to: dateTime }) },
    // Webhooks (issue 15): the caller's endpoints, the victim's (404) and unknown ids.
    ...webhookSpecs(ids, text, bool, limit),
    {
      method: 'GET',
      path: '/api/v1/partner/addresses/validate',
      auth: 'optional',
      query: {
        names: ['coin', 'network', 'address', 'tag'],
        plausible: fc
          .tuple(fc.constantFrom(...ids.currencies), fc.boolean(), fc.boolean(), fc.constantFrom('12345', '0', '4294967296', 'memo text', ''), solAddress)
          .map(([row, omitNetwork, ownAddress, tag, other]) => ({
            coin: row.coin,
            // A coin on several networks without network is 400; with its own network's address, valid.
            ...(omitNetwork ? {} : { network: row.network }),
            address: ownAddress ? (ADDRESS_BY_NETWORK[row.network] ?? ETH_ADDRESS) : other,
            ...(row.is_memo ? { tag } : {}),
          })),
      },
    },
    { method: 'GET', path: '/api/v1/openapi.json', auth: 'none' },

    // Operator API.
    {
      method: 'POST',
      path: '/admin/v1/partners',
      auth: 'admin',
      body: fields({
        name: text(100),
        markup_bps: integerLiteral(-1, 1001),
        rate_limit_per_minute: integerLiteral(0, 1_000_001),
        max_open_orders: fc.oneof(integerLiteral(0, 1_000_001), fc.constant('null')),
        // docs/contract.md §10.9: web origins as a browser sends them, and near misses.
        cors_origins: fc.oneof(
          fc.array(fc.constantFrom('"https://wallet.example"', '"http://localhost:5173"', '"https://wallet.example/"', '"*"', '"null"', '""', '"https://WALLET.example"', '1'), { maxLength: 22 }).map((items) => `[${items.join(',')}]`),
          fc.constantFrom('null', '"https://wallet.example"', '{}'),
        ),
      }),
    },
    { method: 'GET', path: '/admin/v1/partners', auth: 'admin', query: fields({ limit, offset: limit }) },
    { method: 'GET', path: '/admin/v1/partners/:id', auth: 'admin', params: { id: fc.oneof(partnerIds, fc.constant(ids.partnerId)) } },
    {
      method: 'PATCH',
      path: '/admin/v1/partners/:id',
      auth: 'admin',
      params: { id: partnerIds },
      body: fields({
        status: literal(fc.constantFrom('active', 'suspended', 'deleted', 'ACTIVE')),
        markup_bps: integerLiteral(-1, 1001),
        rate_limit_per_minute: integerLiteral(0, 1_000_001),
        max_open_orders: fc.oneof(integerLiteral(0, 1_000_001), fc.constant('null')),
      }),
    },
    {
      method: 'POST',
      path: '/admin/v1/partners/:id/keys',
      auth: 'admin',
      params: { id: partnerIds },
      body: fields({ sandbox: bool, scope: fc.oneof(literal(fc.constantFrom('full', 'client', 'CLIENT', 'server', '')), fc.constant('null')) }),
    },
    {
      method: 'POST',
      path: '/admin/v1/partners/:id/invitations',
      auth: 'admin',
      params: { id: partnerIds },
      body: fields({ email: fc.oneof(literal(fc.constantFrom('ana@partner.example', 'ANA@Partner.Example', 'not an email', '@', '')), text(260)) }),
    },
    {
      method: 'POST',
      path: '/admin/v1/partners/:id/password-resets',
      auth: 'admin',
      params: { id: partnerIds },
      body: fields({ email: fc.oneof(literal(fc.constantFrom('ana@partner.example', 'ANA@Partner.Example', 'not an email', '@', '')), text(260)), clear_2fa: bool }),
    },
    { method: 'GET', path: '/admin/v1/partners/:id/people', auth: 'admin', params: { id: fc.oneof(partnerIds, fc.constant(ids.partnerId)) } },
    { method: 'GET', path: '/admin/v1/partners/:id/account-actions', auth: 'admin', params: { id: fc.oneof(partnerIds, fc.constant(ids.partnerId)) }, query: fields({ limit }) },
    { method: 'POST', path: '/admin/v1/partners/:id/people/:person_id/clear-2fa', auth: 'admin', params: { id: partnerIds, person_id: fc.oneof(randomUuid, fc.constant('not-a-uuid')) } },
    { method: 'POST', path: '/admin/v1/partners/:id/people/:person_id/end-sessions', auth: 'admin', params: { id: partnerIds, person_id: fc.oneof(randomUuid, fc.constant('not-a-uuid')) } },
    { method: 'DELETE', path: '/admin/v1/partners/:id/people/:person_id', auth: 'admin', params: { id: partnerIds, person_id: fc.oneof(randomUuid, fc.constant('not-a-uuid')) } },
    { method: 'GET', path: '/admin/v1/partners/:id/keys', auth: 'admin', params: { id: fc.oneof(partnerIds, fc.constant(ids.partnerId)) } },
    {
      method: 'DELETE',
      path: '/admin/v1/keys/:key_id',
      auth: 'admin',
      params: { key_id: fc.oneof(fc.constantFrom(...ids.victimKeyIds), fc.stringMatching(/^pk_[a-z0-9]{20}$/), fc.constant(`pk_${randomBytes(10).toString('hex')}`)) },
    },
    {
      method: 'GET',
      path: '/admin/v1/audit',
      auth: 'admin',
      query: fields({
        actor: fc.constantFrom('token:ADMIN_TOKEN', 'nobody', '%', '_'),
        action: fc.constantFrom('POST /admin/v1', 'PATCH', '%', '\\'),
        target: fc.constantFrom('orders/', 'currencies/%', ''),
        from: dateTime,
        to: dateTime,
        cursor: fc.constantFrom('1', '0', '999999999999999999', 'x', '-1'),
        limit,
      }),
    },
    {
      method: 'POST',
      path: '/admin/v1/operators',
      auth: 'admin',
      body: fields({
        email: literal(fc.oneof(fc.constantFrom('fuzz@ops.example', 'FUZZ@ops.example', 'no-at-sign', '', 'a@b'), fc.emailAddress())),
        role: literal(fc.constantFrom('viewer', 'support', 'finance', 'admin', 'root', '')),
        name: text(110),
      }),
    },
    { method: 'GET', path: '/admin/v1/currencies', auth: 'admin' },
    {
      method: 'POST',
      path: '/admin/v1/currencies',
      auth: 'admin',
      body: fields({
        coin: literal(fc.oneof(fc.stringMatching(/^[A-Z0-9]{1,12}$/), fc.constantFrom('fza', 'TOOLONGCOINCODE', '', 'BTC'))),
        network: literal(fc.constantFrom('ERC20', 'BTC', 'erc20', 'X'.repeat(13), '')),
        chain: literal(fc.constantFrom('ETH', 'BTC', 'TRON', 'NOPE', 'eth', '')),
        name: text(70),
        decimals: integerLiteral(-1, 19),
        token_contract: fc.oneof(literal(fc.constantFrom('0x00000000000000000000000000000000000000f2', '0x1234', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', '')), fc.constant('null'), text(130)),
        price_symbol: literal(fc.constantFrom('FZA', 'fza', '', 'USDT')),
        min_amount: amountLiteral,
        max_amount: amountLiteral,
        payout_fee: amountLiteral,
        min_confirmations: integerLiteral(-1, 10001),
        address_format: literal(fc.constantFrom('evm', 'bitcoin', 'nope')),
        deposit_strategy: literal(fc.constantFrom('hd', 'memo', 'pool', 'nope')),
        explorer_tx_url: literal(fc.constantFrom('https://x.example/tx/{txid}', 'http://x.example/{txid}', 'https://x.example/', '')),
        icon_url: fc.oneof(literal(fc.constantFrom('https://x.example/i.svg', 'javascript:alert(1)')), fc.constant('null')),
        is_active: bool,
        sort_order: integerLiteral(-100001, 100001),
      }),
    },
    {
      method: 'PATCH',
      path: '/admin/v1/currencies/:id',
      auth: 'admin',
      params: { id: currencyIds },
      body: fields({
        is_active: bool,
        is_deposit_enabled: bool,
        is_withdraw_enabled: bool,
        min_amount: amountLiteral,
        max_amount: amountLiteral,
        payout_fee: amountLiteral,
        min_confirmations: integerLiteral(-1, 10001),
        name: text(70),
        token_contract: literal(fc.constantFrom('0x00000000000000000000000000000000000000f3', '0x1234', '')),
        price_symbol: literal(fc.constantFrom('FZA', 'fza', '')),
        explorer_address_url: literal(fc.constantFrom('https://x.example/a/{address}', 'https://x.example/')),
        sort_order: integerLiteral(-100001, 100001),
        decimals: integerLiteral(0, 18),
      }),
    },
    { method: 'GET', path: '/admin/v1/prices', auth: 'admin' },
    { method: 'PUT', path: '/admin/v1/prices/:coin', auth: 'admin', params: { coin }, body: fields({ price_usd: amountLiteral }) },
    { method: 'GET', path: '/admin/v1/address-pools/:chain', auth: 'admin', params: { chain: fc.constantFrom('SOL', 'sol', 'BTC', 'XYZ') } },
    { method: 'POST', path: '/admin/v1/addresses/resync', auth: 'admin' },
    // Each case with the admin token dumps the store (about 2 s on PGlite on this machine).
    { method: 'POST', path: '/admin/v1/backup', auth: 'admin', maxRuns: 10 },
    {
      method: 'PUT',
      path: '/admin/v1/address-pools/:chain/alert',
      auth: 'admin',
      params: { chain: fc.constantFrom('SOL', 'sol', 'BTC', 'XYZ') },
      body: fields({ low_at: fc.oneof(integerLiteral(-1, 1_000_000_001), fc.constant('null')) }),
    },
    {
      method: 'POST',
      path: '/admin/v1/address-pools/:chain',
      auth: 'admin',
      params: { chain: fc.constantFrom('SOL', 'sol', 'BTC', 'XYZ') },
      body: fields({
        addresses: fc
          .array(fc.oneof({ weight: 4, arbitrary: literal(solAddress) }, { weight: 1, arbitrary: literal(junkText) }, { weight: 1, arbitrary: jsonText }), { maxLength: 5 })
          .map((items) => `[${items.join(',')}]`),
      }),
    },
    {
      method: 'POST',
      path: '/admin/v1/simulator/orders/:id/deposit',
      auth: 'admin',
      params: { id: orderIds },
      body: fields({ amount: amountLiteral, txid: literal(fc.oneof(fc.stringMatching(/^[0-9a-f]{64}$/), fc.constantFrom('0x1234', 'xxxxxxxx'))) }),
    },
    { method: 'POST', path: '/admin/v1/simulator/orders/:id/confirmations', auth: 'admin', params: { id: orderIds }, body: fields({ count: integerLiteral(-1, 100_001) }) },
    { method: 'POST', path: '/admin/v1/simulator/orders/:id/drop-deposit', auth: 'admin', params: { id: orderIds } },
    {
      method: 'POST',
      path: '/admin/v1/simulator/faults',
      auth: 'admin',
      body: fields({ step: literal(fc.constantFrom('exchange', 'payout', 'refund', 'other')), count: integerLiteral(-1, 1001), permanent: bool }),
    },
    {
      method: 'GET',
      path: '/admin/v1/orders',
      auth: 'admin',
      query: fields({
        status: fc.constantFrom('waiting_deposit', 'confirming', 'completed', 'expired', 'failed', 'nope'),
        partner_id: partnerIds,
        created_from: dateTime,
        created_to: dateTime,
        sandbox: bool,
        limit,
        offset: limit,
      }),
    },
    { method: 'GET', path: '/admin/v1/orders/:id', auth: 'admin', params: { id: orderIds } },
    { method: 'POST', path: '/admin/v1/orders/:id/fail', auth: 'admin', params: { id: orderIds }, body: fields({ reason: text(500) }) },
    // A stuck order's step made due now: an empty object or nothing, anything else a 400.
    { method: 'POST', path: '/admin/v1/orders/:id/resume', auth: 'admin', params: { id: orderIds }, body: fields({ note: text(20) }) },
    // Order actions as the operator (issue 14) and the commission report (docs/contract.md §7.8).
    ...(['cancel', 'continue', 'refund'] as const).map(
      (action): RouteSpec => ({ method: 'POST', path: `/admin/v1/orders/:id/${action}`, auth: 'admin', params: { id: orderIds }, body: fields({ note: text(20) }) }),
    ),
    {
      method: 'PUT',
      path: '/admin/v1/orders/:id/refund-address',
      auth: 'admin',
      params: { id: orderIds },
      body: fields({ refund_address: text(130), refund_address_tag: text(130) }),
    },
    { method: 'GET', path: '/admin/v1/commissions', auth: 'admin', query: fields({ from: dateTime, to: dateTime }) },
    {
      method: 'POST',
      path: '/admin/v1/commissions/payouts',
      auth: 'admin',
      body: fields({ period: fc.oneof(literal(fc.constantFrom('2026-11', '2020-01', '9999-12', '2026-13', '0000-01', '2026-1', '')), text(10)) }),
    },
    { method: 'GET', path: '/admin/v1/health', auth: 'admin' },
    // The ledger and the treasury (docs/contract.md §11.4, §11.5).
    { method: 'GET', path: '/admin/v1/ledger/trial-balance', auth: 'admin', query: fields({ at: dateTime }) },
    {
      method: 'GET',
      path: '/admin/v1/ledger/entries',
      auth: 'admin',
      query: fields({ from: dateTime, to: dateTime }),
      headers: { accept: fc.constantFrom('text/csv', 'application/json', 'text/csv;q=0.5, application/json', 'text/csv, */*;q=0.1') },
    },
    {
      method: 'POST',
      path: '/admin/v1/ledger/transfers',
      auth: 'admin',
      body: fields({
        asset: fc.oneof(literal(fc.constantFrom('ETH', 'BTC', 'LTC', 'XRP', 'NOPE', 'eth')), text(41)),
        from: literal(fc.constantFrom('equity', 'deposits', 'hot_wallet', 'payable', '')),
        to: literal(fc.constantFrom('hot_wallet', 'equity', 'deposits', 'revenue')),
        amount: amountLiteral,
        memo: text(500),
        by: text(100),
      }),
    },
    { method: 'GET', path: '/admin/v1/treasury', auth: 'admin' },
    // The signer's operator side (issue 28): payouts, approval, brakes.
    {
      method: 'GET',
      path: '/admin/v1/payouts',
      auth: 'admin',
      query: fields({ status: fc.constantFrom('requested', 'awaiting_approval', 'confirmed', 'failed', 'sent', 'bogus'), chain: fc.constantFrom('LTC', 'BTC', 'ltc', ''), limit }),
    },
    { method: 'POST', path: '/admin/v1/payouts/:id/approve', auth: 'admin', params: { id: fc.uuid().map(String) }, body: fields({ by: text(100) }) },
    { method: 'GET', path: '/admin/v1/signer', auth: 'admin' },
    ...(['pause', 'resume'] as const).map(
      (action): RouteSpec => ({
        method: 'POST',
        path: `/admin/v1/signer/${action}`,
        auth: 'admin',
        body: fields({ chain: fc.oneof(fc.constantFrom('LTC', 'BTC', 'ETH', '*', 'ltc'), text(13)), by: text(100), reason: text(500) }),
      }),
    ),
    { method: 'GET', path: '/admin/v1/webhooks', auth: 'admin', query: fields({ partner_id: partnerIds, limit }) },
    { method: 'POST', path: '/admin/v1/webhooks/:id/disable', auth: 'admin', params: { id: fc.oneof(fc.constantFrom(...ids.webhookIds, ids.victimWebhookId), fc.uuid().map(String)) } },
    { method: 'POST', path: '/admin/v1/webhooks/:id/enable', auth: 'admin', params: { id: fc.oneof(fc.constantFrom(...ids.webhookIds, ids.victimWebhookId), fc.uuid().map(String)) } },
    {
      method: 'GET',
      path: '/admin/v1/webhooks/:id/deliveries',
      auth: 'admin',
      params: { id: fc.oneof(fc.constantFrom(...ids.webhookIds, ids.victimWebhookId), fc.uuid().map(String)) },
      query: fields({ status: fc.constantFrom('pending', 'delivered', 'failed', 'lost'), limit }),
    },
    { method: 'POST', path: '/admin/v1/webhooks/deliveries/:id/retry', auth: 'admin', params: { id: fc.oneof(fc.constantFrom(...ids.deliveryIds), fc.uuid().map(String)) } },
    { method: 'GET', path: '/admin/v1/openapi.json', auth: 'admin' },

    // The end user's status link (docs/contract.md §10.10): the JSON twin, the page and its stylesheet.
    ...statusLinkSpecs(ids),
    // CORS preflights (docs/contract.md §10.9) of the public and client-key routes.
    ...preflightSpecs(),

    // Operations, icons and the interactive docs.
    { method: 'GET', path: '/healthz', auth: 'none' },
    { method: 'GET', path: '/readyz', auth: 'none' },
    { method: 'GET', path: '/metrics', auth: 'none' },
    { method: 'GET', path: '/static/icons/:file', auth: 'none', params: { file: fc.constantFrom('btc.svg', 'eth.svg', 'ton.svg', 'BTC.svg', 'btc.png', 'x') } },
    { method: 'GET', path: '/docs', auth: 'none' },
    { method: 'GET', path: '/docs/json', auth: 'none' },
    { method: 'GET', path: '/docs/yaml', auth: 'none' },
    { method: 'GET', path: '/docs/static/index.html', auth: 'none' },
    { method: 'GET', path: '/docs/static/swagger-initializer.js', auth: 'none' },
    { method: 'GET', path: '/docs/static/*', auth: 'none' },
  ];
}

/**
 * How many routes Fastify has, HEAD twins left out, counted in printRoutes' tree (whose labels
 * do not always spell the full path, so only the count is used).
 */
export function registeredRouteCount(ctx: FuzzContext): number {
  let count = 0;
  // The cabinet's HTML pages and forms (session cookie and CSRF token, issue 16) are not fuzzed
  // here: test/cabinet/cabinet-security.test.ts runs each of them without a session, with
  // another partner's session and without the CSRF token, and checks nothing changed. The
  // printed tree nests a route's children deeper than it: skip /cabinet and all below it.
  let cabinetColumn: number | undefined;
  for (const line of ctx.t.app.printRoutes({ commonPrefix: false }).split('\n')) {
    // Where the node's branch begins, not its first path character: a segment such as `.csv`
    // (/cabinet/orders.csv) has none of those, and ended the cabinet's subtree early.
    const column = line.indexOf('── ');
    if (cabinetColumn !== undefined && column > cabinetColumn) continue;
    cabinetColumn = /── \/(cabinet|console)\b/.test(line) ? column : undefined;
    if (cabinetColumn !== undefined) continue;
    const methods = /\(([^)]*)\)\s*$/.exec(line)?.[1];
    if (methods !== undefined) count += methods.split(',').filter((m) => m.trim() !== 'HEAD' && m.trim() !== '').length;
  }
  return count;
}

/** The operations of the OpenAPI document, as "METHOD /fastify/:template". */
export function documentedRoutes(ctx: FuzzContext): string[] {
  return [...ctx.documented.keys()].map((key) => key.replace(/\{([A-Za-z_]+)\}/g, ':$1')).sort();
}

/** Summary line of a route's statuses, for the long run's report. */
export function describeStats(stats: Stats): string {
  return [...stats.byStatus.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status}:${n}`)
    .join(' ');
}

/** The partner's webhook routes (docs/contract.md §8): plausible URLs, event lists and the ids made in create(). */
function webhookSpecs(
  ids: FuzzContext['ids'],
  text: (max: number) => fc.Arbitrary<string>,
  bool: fc.Arbitrary<string>,
  limit: fc.Arbitrary<string>,
): RouteSpec[] {
  const endpointIds = fc.oneof(fc.constantFrom(...ids.webhookIds, ids.victimWebhookId, ids.webhookIds[0]?.toUpperCase() ?? ''), fc.uuid().map(String), fc.constant('not-a-uuid'));
  const url = fc.oneof(
    literal(fc.constantFrom('http://127.0.0.1:9/hook', 'https://hooks.partner.example/x', 'http://[::1]:9/', 'ftp://hooks.partner.example/', 'https://user:pw@hooks.partner.example/', 'not a url', '')),
    text(2100),
  );
  const events = fc.constantFrom('null', '["order.created"]', '["order.created","order.status_changed"]', '["ping"]', '[]', '"order.created"', '["order.created","order.created"]');
  const description = fc.oneof(text(250), fc.constant('null'));
  return [
    { method: 'POST', path: '/api/v1/partner/webhooks', auth: 'partner', body: fields({ url, events, description }) },
    { method: 'GET', path: '/api/v1/partner/webhooks', auth: 'partner' },
    { method: 'PATCH', path: '/api/v1/partner/webhooks/:id', auth: 'partner', params: { id: endpointIds }, body: fields({ url, events, description, enabled: bool }) },
    { method: 'DELETE', path: '/api/v1/partner/webhooks/:id', auth: 'partner', params: { id: endpointIds } },
    { method: 'POST', path: '/api/v1/partner/webhooks/:id/rotate-secret', auth: 'partner', params: { id: endpointIds } },
    { method: 'POST', path: '/api/v1/partner/webhooks/:id/test', auth: 'partner', params: { id: endpointIds } },
    {
      method: 'GET',
      path: '/api/v1/partner/webhooks/:id/deliveries',
      auth: 'partner',
      params: { id: endpointIds },
      query: fields({ status: fc.constantFrom('pending', 'delivered', 'failed', 'lost', ''), limit }),
    },
    {
      method: 'POST',
      path: '/api/v1/partner/webhooks/deliveries/:id/retry',
      auth: 'partner',
      params: { id: fc.oneof(fc.constantFrom(...ids.deliveryIds), fc.uuid().map(String), fc.constant('x')) },
    },
  ];
}

/** The status link's routes (docs/contract.md §10.10): the order's token, near misses and junk. */
function statusLinkSpecs(ids: FuzzContext['ids']): RouteSpec[] {
  const token = fc.oneof(
    { weight: 3, arbitrary: fc.constant(ids.statusToken) },
    { weight: 1, arbitrary: fc.constantFrom(ids.statusToken.toUpperCase(), ids.statusToken.slice(1), `${ids.statusToken}A`, ids.shortId, ids.orderId) },
    { weight: 2, arbitrary: fc.oneof(fc.base64String({ minLength: 0, maxLength: 80 }), junkSegment) },
  );
  // The status stream stays open until the order is final: only tokens of no order (or near
  // misses) here, so every case is answered at once (test/streams covers the open stream).
  const noOrderToken = fc.oneof(
    fc.constantFrom(ids.statusToken.toUpperCase(), ids.statusToken.slice(1), `${ids.statusToken}A`, ids.shortId, ids.orderId),
    fc.base64String({ minLength: 0, maxLength: 80 }),
    junkSegment,
  );
  return [
    { method: 'GET', path: '/api/v1/public/orders/:token', auth: 'none', params: { token } },
    { method: 'GET', path: '/api/v1/public/orders/:token/stream', auth: 'none', params: { token: noOrderToken }, headers: { 'last-event-id': fc.constantFrom('', 'x', `${ids.orderId}:1`, '0:0') } },
    { method: 'GET', path: '/status/:token', auth: 'none', params: { token } },
    { method: 'GET', path: '/status/assets/status.css', auth: 'none' },
    { method: 'GET', path: '/status/assets/status.js', auth: 'none' },
  ];
}

/** The OPTIONS routes CORS adds (plugins/cors.ts), with origins and methods asked for. */
function preflightSpecs(): RouteSpec[] {
  const headers: Record<string, fc.Arbitrary<string>> = {
    origin: fc.constantFrom('https://wallet.example', 'https://evil.example', 'null', '', 'http://localhost:5173'),
    'access-control-request-method': fc.constantFrom('GET', 'POST', 'DELETE', 'get', ''),
    'access-control-request-headers': fc.constantFrom('x-api-key', 'authorization, content-type', ''),
  };
  const paths = [
    '/api/v1/currencies',
    '/api/v1/partner/rates',
    '/api/v1/partner/addresses/validate',
    '/api/v1/partner/orders',
    '/api/v1/partner/orders/:order_id',
    '/api/v1/partner/orders/:order_id/qr.svg',
    '/api/v1/public/orders/:token',
    '/api/v1/partner/orders/status',
    '/api/v1/partner/orders/stream',
    '/api/v1/public/orders/:token/stream',
  ];
  const id = fc.oneof(fc.uuid().map(String), junkSegment);
  return paths.map((path): RouteSpec => {
    const params: Record<string, fc.Arbitrary<string>> | undefined = path.includes(':order_id') ? { order_id: id } : path.includes(':token') ? { token: id } : undefined;
    return { method: 'OPTIONS', path, auth: 'none', headers, ...(params === undefined ? {} : { params }) };
  });
}
