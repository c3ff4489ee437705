import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import type { App } from '../../src/app-types.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { findPartnerOrderWire } from '../../src/db/repositories/orders-repository.js';
import { partnerOrderWireJson } from '../../src/views/partner-order-view.js';
import { ORDER_MOVES_CHANNEL } from '../../src/services/order-move-feed.js';
import { depositWalletEnv } from '../helpers/process/order-mix.js';
import { waitFor } from '../helpers/process/waits.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';
import { databaseEnv, testEngine } from '../helpers/test-database.js';

/**
 * The order read cache (docs/adr/0057-order-read-cache.md): GET /partner/orders/{id} and GET
 * /public/orders/{token} answer from the process's copy while the order has not moved, with an
 * ETag and 304 on If-None-Match; a move anywhere replaces or drops the copy; a lost LISTEN
 * drops every copy. A read that could only come from the copy is shown by changing the row
 * behind the lifecycle's back (no move told): the copy still answers the bytes it kept.
 */

const ETH_ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const REFUND_A = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
const REFUND_B = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';

interface OrderJson {
  id: string;
  short_id: string;
  status: string;
  version: number;
  expires_at: string;
  refund_address: string | null;
  status_url: string;
}

type Inject = (options: InjectOptions) => Promise<LightMyRequestResponse>;

async function createOrder(inject: Inject, apiKey: string): Promise<OrderJson> {
  const res = await inject({
    method: 'POST',
    url: '/api/v1/partner/orders',
    headers: { authorization: `Bearer ${apiKey}` },
    payload: { coin_from: 'BTC', network_from: 'BTC', coin_to: 'ETH', network_to: 'ETH', amount_from: 0.1, rate_type: 'float', recipient_address: ETH_ADDRESS },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<OrderJson>();
}

const getOrder = (inject: Inject, apiKey: string, id: string, ifNoneMatch?: string) =>
  inject({
    method: 'GET',
    url: `/api/v1/partner/orders/${id}`,
    headers: { 'x-api-key': apiKey, ...(ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch }) },
  });

const setRefundAddress = async (inject: Inject, apiKey: string, id: string, address: string) => {
  const res = await inject({
    method: 'PUT',
    url: `/api/v1/partner/orders/${id}/refund-address`,
    headers: { authorization: `Bearer ${apiKey}` },
    payload: { refund_address: address },
  });
  assert.equal(res.statusCode, 200, res.body);
};

const tokenOf = (order: OrderJson): string => order.status_url.split('/').at(-1) ?? '';

describe('order read cache, one process (the embedded default on PGlite; PostgreSQL with its own LISTEN)', () => {
  const clock = new ManualClock(new Date('2026-06-15T12:00:00.000Z'));
  let t: TestApp;
  let acme: { id: string; apiKey: string; keyId: string };
  let other: { id: string; apiKey: string; keyId: string };
  before(async () => {
    const production = testEngine() === 'postgres';
    t = await buildTestApp({ clock, production, env: { WORKER: 'off', PRICE_POLL_SECONDS: '3600', ...(production ? depositWalletEnv() : {}) } });
    acme = await t.createPartner({ rate_limit_per_minute: 100_000 });
    other = await t.createPartner({ rate_limit_per_minute: 100_000 });
  });
  after(() => t.close());

  const inject: Inject = (options) => t.app.inject(options);
  const db = () => t.db.handle.db;

  /** Reads until the process keeps a copy (PostgreSQL: from the LISTEN on). */
  async function readKept(id: string): Promise<string> {
    return waitFor('the order kept', async () => {
      const before = t.runtime.orderReads.kept;
      const res = await getOrder(inject, acme.apiKey, id);
      assert.equal(res.statusCode, 200, res.body);
      return t.runtime.orderReads.kept > before || (await isKept(id, res.body)) ? res.body : undefined;
    }, { timeoutMs: 5000, intervalMs: 20 });
  }

  /** Whether the next read answers `body` although the row changed behind the lifecycle's back. */
  async function isKept(id: string, body: string): Promise<boolean> {
    const probe = `cache probe ${randomBytes(4).toString('hex')}`;
    await db().updateTable('orders').set({ deposit_uri: probe }).where('id', '=', id).execute();
    const res = await getOrder(inject, acme.apiKey, id);
    await db().updateTable('orders').set({ deposit_uri: (JSON.parse(body) as { deposit_uri: string | null }).deposit_uri }).where('id', '=', id).execute();
    return res.body === body;
  }

  it('answers a kept order without the database, by id and by short id; 304 with its ETag, 200 with another', async () => {
    const order = await createOrder(inject, acme.apiKey);
    const body = await readKept(order.id);
    assert.ok(await isKept(order.id, body), 'the copy answers');
    const res = await getOrder(inject, acme.apiKey, order.short_id.toLowerCase());
    assert.equal(res.body, body);
    const etag = res.headers.etag;
    assert.ok(typeof etag === 'string' && /^"[A-Za-z0-9_-]{22}"$/.test(etag), String(etag));
    const notModified = await getOrder(inject, acme.apiKey, order.id, etag);
    assert.equal(notModified.statusCode, 304);
    assert.equal(notModified.body, '');
    assert.equal(notModified.headers.etag, etag);
    for (const asked of [`W/${etag}`, `"x", ${etag}`, '*']) assert.equal((await getOrder(inject, acme.apiKey, order.id, asked)).statusCode, 304, asked);
    const changed = await getOrder(inject, acme.apiKey, order.id, '"something else"');
    assert.equal(changed.statusCode, 200);
    assert.equal(changed.body, body);
  });

  it('counts its hits and misses and the orders it holds in /metrics', async () => {
    const scrape = async () => {
      const text = (await t.operator({ method: 'GET', url: '/metrics' })).body;
      const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? Number.NaN);
      return {
        hits: value(/^order_read_cache_lookups_total\{result="hit"\} (\d+)$/m),
        misses: value(/^order_read_cache_lookups_total\{result="miss"\} (\d+)$/m),
        orders: value(/^order_read_cache_orders (\d+)$/m),
      };
    };
    const order = await createOrder(inject, acme.apiKey);
    await readKept(order.id);
    const before = await scrape();
    assert.equal(before.orders, t.runtime.orderReads.kept);
    assert.ok(before.orders >= 1 && before.misses >= 1, JSON.stringify(before));
    for (let i = 0; i < 3; i += 1) assert.equal((await getOrder(inject, acme.apiKey, order.id)).statusCode, 200);
    assert.equal((await getOrder(inject, acme.apiKey, randomUUID())).statusCode, 404);
    const after = await scrape();
    assert.deepEqual({ hits: after.hits - before.hits, misses: after.misses - before.misses }, { hits: 3, misses: 1 });
  });

  it('never serves a kept order to another partner, the other mode or another client key', async () => {
    const order = await createOrder(inject, acme.apiKey);
    await readKept(order.id);
    for (const id of [order.id, order.short_id]) {
      const res = await getOrder(inject, other.apiKey, id);
      assert.equal(res.statusCode, 404, res.body);
    }
    const sandbox = await t.admin('POST', `/admin/v1/partners/${acme.id}/keys`, { sandbox: true });
    assert.equal(sandbox.statusCode, 201, sandbox.body);
    assert.equal((await getOrder(inject, sandbox.json<{ api_key: string }>().api_key, order.id)).statusCode, 404);
    const client = await t.admin('POST', `/admin/v1/partners/${acme.id}/keys`, { scope: 'client' });
    assert.equal(client.statusCode, 201, client.body);
    const clientKey = client.json<{ api_key: string }>().api_key;
    assert.equal((await getOrder(inject, clientKey, order.id)).statusCode, 404);
    // A client key's own order, kept after a full key read it, is its own.
    const own = await createOrder(inject, clientKey);
    await readKept(own.id);
    assert.equal((await getOrder(inject, clientKey, own.id)).statusCode, 200);
    assert.equal((await getOrder(inject, clientKey, own.short_id)).statusCode, 403);
  });

  it('a move replaces the copy: new bytes, new version, new ETag; the old ETag is 200', async () => {
    const order = await createOrder(inject, acme.apiKey);
    const body = await readKept(order.id);
    const etag = (await getOrder(inject, acme.apiKey, order.id)).headers.etag as string;
    await setRefundAddress(inject, acme.apiKey, order.id, REFUND_A);
    const moved = await waitFor('the move read', async () => {
      const res = await getOrder(inject, acme.apiKey, order.id, etag);
      return res.statusCode === 200 ? res : undefined;
    }, { timeoutMs: 1000, intervalMs: 10 });
    assert.notEqual(moved.body, body);
    assert.notEqual(moved.headers.etag, etag);
    const after = moved.json<OrderJson>();
    assert.equal(after.version, order.version + 1);
    assert.equal(after.refund_address, REFUND_A);
    // What the copy answers is what the database's row gives.
    assert.ok(await isKept(order.id, moved.body), 'the moved order is kept again');
    const fromDatabase = await db().selectFrom('orders').select(['version', 'refund_address']).where('id', '=', order.id).executeTakeFirstOrThrow();
    assert.deepEqual({ version: after.version, refund_address: after.refund_address }, fromDatabase);
  });

  it('a kept waiting order reads expired from expires_at on, as the database path does', async () => {
    const order = await createOrder(inject, acme.apiKey);
    clock.set(new Date(Date.parse(order.expires_at) - 1));
    const before = await readKept(order.id);
    assert.equal((JSON.parse(before) as OrderJson).status, 'waiting_deposit');
    clock.set(new Date(order.expires_at));
    const at = await getOrder(inject, acme.apiKey, order.id, `"${'x'.repeat(22)}"`);
    const parsed = at.json<OrderJson & { actions: string[] }>();
    assert.equal(parsed.status, 'expired');
    assert.deepEqual(parsed.actions, []);
    // The database path at the same instant writes the same bytes.
    const row = await findPartnerOrderWire(db(), { partnerId: acme.id }, { id: order.id });
    assert.ok(row !== undefined);
    assert.equal(at.body, partnerOrderWireJson(row, clock.now(), t.runtime.linkBase));
    assert.notEqual(at.body, before);
    clock.set(new Date('2026-06-15T12:00:00.000Z'));
  });

  it('the public status read: ETag, 304, and the move seen', async () => {
    const order = await createOrder(inject, acme.apiKey);
    await readKept(order.id);
    const url = `/api/v1/public/orders/${tokenOf(order)}`;
    const first = await inject({ method: 'GET', url });
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.headers['cache-control'], 'no-store');
    const etag = first.headers.etag as string;
    const again = await inject({ method: 'GET', url, headers: { 'if-none-match': etag } });
    assert.equal(again.statusCode, 304);
    await inject({ method: 'POST', url: `/api/v1/partner/orders/${order.id}/cancel`, headers: { authorization: `Bearer ${acme.apiKey}` } });
    const moved = await waitFor('the public move read', async () => {
      const res = await inject({ method: 'GET', url, headers: { 'if-none-match': etag } });
      return res.statusCode === 200 ? res : undefined;
    }, { timeoutMs: 1000, intervalMs: 10 });
    assert.equal(moved.json<{ status: string }>().status, 'expired');
    assert.notEqual(moved.headers.etag, etag);
    const unknown = await inject({ method: 'GET', url: '/api/v1/public/orders/nothing-like-a-token' });
    assert.equal(unknown.statusCode, 404);
  });
});

/**
 * Two API processes on one PostgreSQL database (production's configuration): each keeps its own
 * copies, kept right by NOTIFY. The second is a whole app of its own (its own pool, LISTEN
 * connection and cache) beside the test app, as a second process would be.
 */
describe('order read cache across processes (DATABASE_URL)', { skip: testEngine() === 'postgres' ? false : 'LISTEN/NOTIFY between processes is the PostgreSQL store: runs on the PostgreSQL pass' }, () => {
  const secretsKey = randomBytes(32).toString('hex');
  let t: TestApp;
  let second: App;
  let secondDataDir: string;
  let acme: { id: string; apiKey: string; keyId: string };
  before(async () => {
    const env = { WORKER: 'off', PRICE_POLL_SECONDS: '3600', SECRETS_KEY: secretsKey, ...depositWalletEnv() };
    t = await buildTestApp({ production: true, env });
    acme = await t.createPartner({ rate_limit_per_minute: 100_000 });
    secondDataDir = mkdtempSync(path.join(tmpdir(), 'epa-test-'));
    const config = loadConfig({ ...env, ...databaseEnv(t.db), DATA_DIR: secondDataDir, ADMIN_TOKEN: randomBytes(32).toString('base64url'), LOG_LEVEL: 'info' });
    const database = await openDatabase({ engine: 'postgres', url: t.db.url ?? '', poolSize: 4, connectTimeoutMs: 10_000, preparedStatements: !t.db.pooled });
    second = await buildApp({ config, database, logDestination: new Writable({ write: (_chunk, _encoding, done) => done() }) });
    await second.ready();
  });
  after(async () => {
    await second?.close();
    await t?.close();
    rmSync(secondDataDir, { recursive: true, force: true });
  });

  const first: Inject = (options) => t.app.inject(options);
  const other: Inject = (options) => second.inject(options);

  /** Reads in the second process until it keeps the order: a row change behind the lifecycle's back is not seen. */
  async function keptBySecond(order: OrderJson): Promise<string> {
    return waitFor('the second process keeping the order', async () => {
      const body = (await getOrder(other, acme.apiKey, order.id)).body;
      const probe = `cache probe ${randomBytes(4).toString('hex')}`;
      await t.db.handle.db.updateTable('orders').set({ deposit_uri: probe }).where('id', '=', order.id).execute();
      const again = (await getOrder(other, acme.apiKey, order.id)).body;
      await t.db.handle.db.updateTable('orders').set({ deposit_uri: (JSON.parse(body) as { deposit_uri: string | null }).deposit_uri }).where('id', '=', order.id).execute();
      return again === body ? body : undefined;
    }, { timeoutMs: 5000, intervalMs: 20 });
  }

  const listeners = async (admin: pg.Client): Promise<number[]> =>
    (
      await admin.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database() and query = $1', [`LISTEN ${ORDER_MOVES_CHANNEL}`])
    ).rows.map((row) => row.pid);

  it('an order moved in one process is read fresh in the other within a second', async () => {
    const order = await createOrder(first, acme.apiKey);
    const body = await keptBySecond(order);
    assert.equal((JSON.parse(body) as OrderJson).version, 0);
    await setRefundAddress(first, acme.apiKey, order.id, REFUND_A);
    const moved = await waitFor('the move in the other process', async () => {
      const res = await getOrder(other, acme.apiKey, order.id);
      return res.json<OrderJson>().version === 1 ? res : undefined;
    }, { timeoutMs: 1000, intervalMs: 10 });
    assert.equal(moved.json<OrderJson>().refund_address, REFUND_A);
    // Byte for byte what the moving process answers.
    assert.equal(moved.body, (await getOrder(first, acme.apiKey, order.id)).body);
  });

  it('a lost LISTEN drops every copy: a move told while it was down is never read stale', async () => {
    const order = await createOrder(first, acme.apiKey);
    await setRefundAddress(first, acme.apiKey, order.id, REFUND_A);
    const body = await keptBySecond(order);
    assert.equal((JSON.parse(body) as OrderJson).refund_address, REFUND_A);
    const admin = new pg.Client({ connectionString: t.db.directUrl });
    await admin.connect();
    try {
      const before = await listeners(admin);
      assert.equal(before.length, 2, 'one LISTEN per process');
      await admin.query('select pg_terminate_backend(pid) from unnest($1::int[]) as pid', [before]);
      // Moved while no process listens: nobody is told.
      await setRefundAddress(first, acme.apiKey, order.id, REFUND_B);
      // Every read from the cut on is fresh: while the LISTEN is down (nothing kept) and after it is back (all dropped).
      const seen: string[] = [];
      await waitFor('both LISTENs back', async () => {
        const res = await getOrder(other, acme.apiKey, order.id);
        seen.push(res.json<OrderJson>().refund_address ?? '');
        const now = await listeners(admin);
        return now.length === 2 && now.every((pid) => !before.includes(pid));
      }, { timeoutMs: 10_000, intervalMs: 20 });
      const fresh = await getOrder(other, acme.apiKey, order.id);
      assert.equal(fresh.json<OrderJson>().refund_address, REFUND_B);
      assert.ok(seen.every((address) => address === REFUND_B), seen.join(' '));
      // And kept again after: the second process keeps copies once it listens.
      assert.equal((JSON.parse(await keptBySecond(order)) as OrderJson).refund_address, REFUND_B);
    } finally {
      await admin.end();
    }
  });
});
