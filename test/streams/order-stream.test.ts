// test-direct: postgres
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { OrderStatus } from '../../src/domain/order-status.js';
import { openSse, type SseEvent, type SseReader } from '../helpers/sse-client.js';
import { depositWalletEnv } from '../helpers/process/order-mix.js';
import { buildTestApp, ManualClock } from '../helpers/test-app.js';
import { testEngine } from '../helpers/test-database.js';
import { BTC_CONFIRMATIONS, createOrder, LIFECYCLE_ENV, setConfirmations, simulateDeposit, startHarness, type Harness } from '../lifecycle/lifecycle-helpers.js';

/**
 * The status stream and the batch status read (docs/contract.md §10.11, issue 35), in one process on
 * either engine: each version of an order arrives once and in order, the first event is the
 * current state, Last-Event-ID resumes without a gap or a repeat, the stream ends once the
 * order is final, the public stream carries the public view, and the caps answer 429.
 */

interface StreamedOrder {
  id: string;
  status: OrderStatus;
  version: number;
  [field: string]: unknown;
}

describe('status stream and status read (docs/contract.md §10.11)', () => {
  let h: Harness;
  let base: string;
  before(async () => {
    h = await startHarness({ STREAM_MAX_PER_KEY: '3', STREAM_MAX_PER_ADDRESS: '2', STREAM_PING_SECONDS: '1' });
    base = await h.t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => h.t.close());

  const auth = (key = h.partner.apiKey) => ({ authorization: `Bearer ${key}` });

  function partnerStream(ids: string[], headers: Record<string, string> = {}, key = h.partner.apiKey) {
    return openSse(`${base}/api/v1/partner/orders/stream?ids=${ids.join(',')}`, { ...auth(key), ...headers });
  }

  async function getBody(id: string): Promise<string> {
    const res = await h.t.app.inject({ method: 'GET', url: `/api/v1/partner/orders/${id}`, headers: auth() });
    assert.equal(res.statusCode, 200, res.body);
    return res.body;
  }

  /** Deposit, confirmations, exchange, payout: every pass of the worker until completed. */
  async function runToCompletion(id: string): Promise<void> {
    await simulateDeposit(h, id);
    await h.t.runtime.worker.tick();
    await setConfirmations(h, id, BTC_CONFIRMATIONS);
    for (let i = 0; i < 8; i++) {
      await h.t.runtime.worker.tick();
      const order = JSON.parse(await getBody(id)) as StreamedOrder;
      if (order.status === 'completed') return;
    }
    assert.fail('the order did not complete');
  }

  function versionsOf(events: SseEvent[], id: string): number[] {
    return events.filter((event) => event.id?.startsWith(`${id}:`)).map((event) => Number(event.id?.split(':')[1]));
  }

  function check(event: SseEvent | undefined, id: string): StreamedOrder {
    assert.ok(event !== undefined, 'an event');
    assert.equal(event.event, 'order');
    const order = JSON.parse(event.data) as StreamedOrder;
    assert.equal(order.id, id);
    assert.equal(event.id, `${id}:${order.version}`);
    return order;
  }

  it('the Order gains version: 0 at creation, +1 per move', async () => {
    const order = await createOrder(h);
    assert.equal(order['version'], '0');
    await simulateDeposit(h, order.id);
    await h.t.runtime.worker.tick();
    assert.equal((JSON.parse(await getBody(order.id)) as StreamedOrder).version, 1);
  });

  it('POST /partner/orders/status: id, status, version, updated_at of the key\'s orders; the rest left out', async () => {
    const mine = await createOrder(h);
    const other = await h.t.createPartner();
    const theirs = await createOrder(h, {}, other.apiKey);
    const res = await h.t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders/status',
      headers: auth(),
      payload: { ids: [theirs.id, mine.id, '00000000-0000-4000-8000-000000000000', 'not-an-id', mine.id.toUpperCase()] },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { orders: [{ id: mine.id, status: 'waiting_deposit', version: 0, updated_at: mine['updated_at'] }] });
    const tooMany = await h.t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders/status',
      headers: auth(),
      payload: { ids: Array.from({ length: 101 }, () => mine.id) },
    });
    assert.equal(tooMany.statusCode, 400, tooMany.body);
    assert.equal(typeof tooMany.json<{ detail: unknown }>().detail, 'string');
  });

  it('a client key reads the status of the orders it created only', async () => {
    const issued = await h.t.admin('POST', `/admin/v1/partners/${h.partner.id}/keys`, { scope: 'client' });
    const client = issued.json<{ api_key: string }>().api_key;
    const own = await createOrder(h, {}, client);
    const full = await createOrder(h);
    const res = await h.t.app.inject({ method: 'POST', url: '/api/v1/partner/orders/status', headers: auth(client), payload: { ids: [own.id, full.id] } });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json<{ orders: { id: string }[] }>().orders.map((line) => line.id), [own.id]);
    const streamed = await partnerStream([full.id], {}, client);
    assert.equal(streamed.status, 404, streamed.body);
    const ownStream = await partnerStream([own.id, full.id], {}, client);
    assert.equal(ownStream.status, 200);
    check(await ownStream.reader?.next(), own.id);
    ownStream.reader?.close();
  });

  it('streams an order through its whole life: the current state first, then every version once, in order, each the Order as GET answered it; then it ends', async () => {
    const order = await createOrder(h);
    const opened = await partnerStream([order.id]);
    assert.equal(opened.status, 200, opened.body);
    assert.match(opened.headers['content-type'] ?? '', /^text\/event-stream/);
    assert.equal(opened.headers['cache-control'], 'no-store');
    const reader = opened.reader as SseReader;
    const first = await reader.next();
    assert.equal(first?.data, await getBody(order.id));
    const bodies: string[] = [];
    await runToCompletion(order.id);
    const rest = await reader.rest();
    assert.equal(reader.isEnded, true, 'the stream ended after the final status');
    for (const event of rest) {
      const streamed = check(event, order.id);
      bodies.push(streamed.status);
    }
    const versions = versionsOf([first, ...rest], order.id);
    assert.deepEqual(versions, versions.map((_, i) => i), `every version once and in order: ${versions.join(',')}`);
    assert.equal(bodies.at(-1), 'completed');
    // The last event is the Order as GET answers it now (nothing moved since).
    assert.equal(rest.at(-1)?.data, await getBody(order.id));
  });

  it('Last-Event-ID resumes: the versions missed while away, once and in order, and nothing seen again', async () => {
    const order = await createOrder(h);
    const first = await partnerStream([order.id]);
    assert.equal(check(await first.reader?.next(), order.id).version, 0);
    await simulateDeposit(h, order.id);
    await h.t.runtime.worker.tick();
    assert.equal(check(await first.reader?.next(), order.id).version, 1);
    first.reader?.close();
    // Away: the order runs to its end.
    await setConfirmations(h, order.id, BTC_CONFIRMATIONS);
    await h.t.runtime.worker.tick();
    await h.t.runtime.worker.tick();
    const stored = JSON.parse(await getBody(order.id)) as StreamedOrder;
    assert.equal(stored.status, 'completed');
    assert.ok(stored.version >= 3, `moved while away (version ${stored.version})`);
    const again = await partnerStream([order.id], { 'last-event-id': `${order.id}:1` });
    assert.equal(again.status, 200, again.body);
    const missed = (await (again.reader as SseReader).rest()).map((event) => check(event, order.id));
    assert.deepEqual(
      missed.map((streamed) => streamed.version),
      Array.from({ length: stored.version - 1 }, (_, i) => i + 2),
    );
    // The last one is the final state, as GET answers it; the stream ended after it.
    assert.equal(JSON.stringify(missed.at(-1)), JSON.stringify(stored));
  });

  it('a resume that is up to date sends nothing until the next move, which comes once', async () => {
    const order = await createOrder(h);
    const again = await partnerStream([order.id], { 'last-event-id': `${order.id}:0` });
    assert.equal(again.status, 200, again.body);
    const reader = again.reader as SseReader;
    await simulateDeposit(h, order.id);
    await h.t.runtime.worker.tick();
    assert.equal(check(await reader.next(), order.id).version, 1);
    reader.close();
  });

  it('a stream of a final order the reader has wholly seen is 204; one of a final order not seen yet sends its state and ends', async () => {
    const order = await createOrder(h);
    await runToCompletion(order.id);
    const done = JSON.parse(await getBody(order.id)) as StreamedOrder;
    const fresh = await partnerStream([order.id]);
    const events = await (fresh.reader as SseReader).rest();
    assert.deepEqual(events.map((event) => event.id), [`${order.id}:${done.version}`]);
    const seen = await partnerStream([order.id], { 'last-event-id': `${order.id}:${done.version}` });
    assert.equal(seen.status, 204);
  });

  it('the public stream carries the public view (as GET /public/orders/{token} answers it) and ends when the order is final', async () => {
    const order = await createOrder(h);
    const token = String(order['status_url']).split('/').pop() as string;
    const opened = await openSse(`${base}/api/v1/public/orders/${token}/stream`);
    assert.equal(opened.status, 200, opened.body);
    assert.equal(opened.headers['access-control-allow-origin'], '*');
    const reader = opened.reader as SseReader;
    const first = await reader.next();
    const publicNow = await h.t.app.inject({ method: 'GET', url: `/api/v1/public/orders/${token}` });
    assert.equal(first?.data, publicNow.body);
    assert.equal(first?.id, `${order.id}:0`);
    await runToCompletion(order.id);
    const rest = await reader.rest();
    assert.equal(reader.isEnded, true);
    const last = rest.at(-1);
    assert.equal(last?.data, (await h.t.app.inject({ method: 'GET', url: `/api/v1/public/orders/${token}` })).body);
    const versions = versionsOf([first, ...rest], order.id);
    assert.deepEqual(versions, versions.map((_, i) => i));
    const unknown = await openSse(`${base}/api/v1/public/orders/${'x'.repeat(32)}/stream`);
    assert.equal(unknown.status, 404);
    assert.equal(typeof (JSON.parse(unknown.body) as { detail: unknown }).detail, 'string');
  });

  it('pings every STREAM_PING_SECONDS with a comment', async () => {
    const order = await createOrder(h);
    const opened = await partnerStream([order.id]);
    const reader = opened.reader as SseReader;
    await reader.next();
    const deadline = Date.now() + 3000;
    while (!reader.comments.includes(': ping') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(reader.comments.includes(': ping'), 'a ping within 3 s');
    reader.close();
  });

  it('caps open streams per key and per client address: 429 with a detail, counted in metrics', async () => {
    const order = await createOrder(h);
    const open: SseReader[] = [];
    for (let i = 0; i < 3; i++) {
      const stream = await partnerStream([order.id]);
      assert.equal(stream.status, 200, stream.body);
      await stream.reader?.next();
      open.push(stream.reader as SseReader);
    }
    const refused = await partnerStream([order.id]);
    assert.equal(refused.status, 429);
    assert.match((JSON.parse(refused.body) as { detail: string }).detail, /STREAM_MAX_PER_KEY/);
    const metrics = (await h.t.operator({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${h.t.adminToken}` } })).body;
    assert.match(metrics, /order_streams_open\{view="partner"\} 3/);
    assert.match(metrics, /order_streams_refused_total\{reason="key"\} 1/);
    for (const reader of open) reader.close();
    // Closed streams give their places back.
    const deadline = Date.now() + 3000;
    let again = await partnerStream([order.id]);
    while (again.status === 429 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      again = await partnerStream([order.id]);
    }
    assert.equal(again.status, 200);
    again.reader?.close();

    const token = String(order['status_url']).split('/').pop() as string;
    const publicStreams = [];
    for (let i = 0; i < 2; i++) publicStreams.push(await openSse(`${base}/api/v1/public/orders/${token}/stream`));
    const third = await openSse(`${base}/api/v1/public/orders/${token}/stream`);
    assert.equal(third.status, 429);
    assert.match((JSON.parse(third.body) as { detail: string }).detail, /STREAM_MAX_PER_ADDRESS/);
    for (const stream of publicStreams) stream.reader?.close();
  });

  it('asks for at most 50 orders per stream (400) and at least one of the key\'s (404)', async () => {
    const order = await createOrder(h);
    const many = await partnerStream(Array.from({ length: 51 }, () => order.id));
    assert.equal(many.status, 400);
    const none = await partnerStream(['00000000-0000-4000-8000-000000000000']);
    assert.equal(none.status, 404);
    const anonymous = await openSse(`${base}/api/v1/partner/orders/stream?ids=${order.id}`);
    assert.equal(anonymous.status, 401);
  });
});

/**
 * Production's feed in one process (DATABASE_URL set, PostgreSQL pass): the moves reach the
 * streams by NOTIFY on the move's statement and this process's own LISTEN, not in-process.
 */
describe('status stream over LISTEN/NOTIFY (DATABASE_URL)', { skip: testEngine() === 'postgres' ? false : 'production configuration needs PostgreSQL: the PostgreSQL pass runs it' }, () => {
  let h: Harness;
  let base: string;
  before(async () => {
    const t = await buildTestApp({ production: true, clock: new ManualClock(), env: { ...LIFECYCLE_ENV, ...depositWalletEnv() } });
    h = { t, clock: new ManualClock(), partner: await t.createPartner() };
    base = await h.t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => h?.t.close());

  it('tells every version once and in order, as NOTIFY delivers them', async () => {
    const order = await createOrder(h);
    const opened = await openSse(`${base}/api/v1/partner/orders/stream?ids=${order.id}`, { authorization: `Bearer ${h.partner.apiKey}` });
    assert.equal(opened.status, 200, opened.body);
    const reader = opened.reader as SseReader;
    await simulateDeposit(h, order.id);
    await h.t.runtime.worker.tick();
    await setConfirmations(h, order.id, BTC_CONFIRMATIONS);
    await h.t.runtime.worker.tick();
    await h.t.runtime.worker.tick();
    const events = [await reader.next(), ...(await reader.rest())];
    const versions = events.map((event) => Number(event?.id?.split(':')[1]));
    assert.deepEqual(versions, versions.map((_, i) => i));
    assert.equal((JSON.parse(events.at(-1)?.data ?? '{}') as { status: string }).status, 'completed');
    const snapshots = await h.t.db.handle.db.selectFrom('order_snapshots').select('version').where('order_id', '=', order.id).orderBy('version').execute();
    assert.deepEqual(snapshots.map((row) => row.version), versions.slice(1));
  });
});
