// test-direct: postgres
import assert from 'node:assert/strict';
import { after, before, describe, it, mock } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { RETRY_DELAYS_MS } from '../../src/domain/webhook-events.js';
import { createMetrics } from '../../src/metrics.js';
import { WebhookSender, type SendOutcome } from '../../src/infrastructure/webhook-sender.js';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runAdminCli } from '../helpers/admin-cli.js';
import { runSecuritySuite, type SuitePartner } from '../helpers/security-suite.js';
import { waitFor } from '../helpers/process/waits.js';
import { ManualClock } from '../helpers/test-app.js';
import { Decimal } from '../../src/domain/money.js';
import {
  advance,
  BTC_CONFIRMATIONS,
  BTC_REFUND,
  createOrder,
  ETH_RECIPIENT,
  fixedQuote,
  getOrder,
  setConfirmations,
  simulateDeposit,
  startHarness,
  tickUntil,
  type Harness,
  type OrderJson,
} from '../lifecycle/lifecycle-helpers.js';
import { answer, WebhookReceiver, type Received } from './webhook-receiver.js';

interface Endpoint {
  id: string;
  url: string;
  enabled: boolean;
  disabled_reason: string | null;
  failing_since: string | null;
  secret?: string;
}

interface Delivery {
  id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempt: number;
  status_code: number | null;
  duration_ms: number | null;
  error: string | null;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
}

interface EventBody {
  type: string;
  timestamp: string;
  data: { order?: { id: string; status: string; actions: string[]; refund_hold_until: string | null }; previous_status?: string | null };
}

describe('webhooks (docs/contract.md §8)', () => {
  const clock = new ManualClock(new Date());
  const receiver = new WebhookReceiver();
  let h: Harness;

  before(async () => {
    // Now, when the file's tests start: the describe body ran when its group imported every file,
    // minutes earlier on a busy pass, and the receiver checks webhook-timestamp against Date.now().
    clock.set(new Date());
    await receiver.start();
    h = await startHarness({}, clock);
  });
  after(async () => {
    await h.t.close();
    await receiver.close();
  });

  const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, apiKey = h.partner.apiKey) =>
    h.t.app.inject({
      method,
      url: `/api/v1/partner${url}`,
      headers: { 'x-api-key': apiKey, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  const addEndpoint = async (path: string, fields: Record<string, unknown> = {}, apiKey = h.partner.apiKey): Promise<Endpoint> => {
    const res = await api('POST', '/webhooks', { url: receiver.url(path), ...fields }, apiKey);
    assert.equal(res.statusCode, 201, res.body);
    return res.json<Endpoint>();
  };
  const deliveries = async (endpointId: string): Promise<Delivery[]> => {
    const res = await api('GET', `/webhooks/${endpointId}/deliveries`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ deliveries: Delivery[] }>().deliveries;
  };
  const ping = async (endpointId: string): Promise<Delivery> => {
    const res = await api('POST', `/webhooks/${endpointId}/test`);
    assert.equal(res.statusCode, 202, res.body);
    return res.json<Delivery>();
  };
  const deliver = () => h.t.app.runtime.webhookWorker.drain();
  const verify = (secret: string, request: Received): EventBody =>
    new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as EventBody;

  /** One endpoint per owner, made on first use with the owner's own key. */
  const endpoints = new Map<string, string>();
  const endpointOf = async (owner: SuitePartner): Promise<string> => {
    const known = endpoints.get(owner.id);
    if (known !== undefined) return known;
    const id = (await addEndpoint('/security', {}, owner.apiKey)).id;
    endpoints.set(owner.id, id);
    return id;
  };
  runSecuritySuite('GET /api/v1/partner/webhooks', {
    app: () => h.t,
    request: async () => ({ method: 'GET', url: '/api/v1/partner/webhooks' }),
    successStatus: 200,
  });
  runSecuritySuite('GET /api/v1/partner/webhooks/{id}/deliveries', {
    app: () => h.t,
    request: async (owner) => ({ method: 'GET', url: `/api/v1/partner/webhooks/${await endpointOf(owner)}/deliveries` }),
    successStatus: 200,
    otherPartnerStatus: 404,
  });
  runSecuritySuite('POST /api/v1/partner/webhooks/{id}/rotate-secret', {
    app: () => h.t,
    request: async (owner) => ({ method: 'POST', url: `/api/v1/partner/webhooks/${await endpointOf(owner)}/rotate-secret` }),
    successStatus: 200,
    otherPartnerStatus: 404,
    invalidRequest: async (owner) => ({ method: 'POST', url: `/api/v1/partner/webhooks/${await endpointOf(owner)}/rotate-secret`, payload: '{"x":1}' }),
  });

  it('sends order.created and order.status_changed signed per Standard Webhooks, the Order exactly as GET answers it', async () => {
    const endpoint = await addEndpoint('/orders');
    assert.match(endpoint.secret ?? '', /^whsec_[A-Za-z0-9+/]+=*$/);
    const other = await h.t.createPartner();
    await addEndpoint('/other-partner', {}, other.apiKey);

    const order = await createOrder(h);
    assert.equal(await deliver(), 1);
    const [created] = receiver.on('/orders');
    assert.ok(created !== undefined);
    const createdBody = verify(endpoint.secret ?? '', created);
    assert.equal(createdBody.type, 'order.created');
    assert.equal(createdBody.data.previous_status, null);
    assert.equal(createdBody.timestamp, clock.now().toISOString());
    const got = await api('GET', `/orders/${order.id}`);
    // Byte for byte: the Order in the body is GET's answer at that version.
    assert.ok(created.body.includes(`"order":${got.body},`), created.body);

    clock.advance(1000);
    await simulateDeposit(h, order.id);
    await h.t.runtime.worker.tick();
    assert.equal(await deliver(), 1);
    const changed = receiver.on('/orders')[1];
    assert.ok(changed !== undefined);
    const changedBody = verify(endpoint.secret ?? '', changed);
    assert.equal(changedBody.type, 'order.status_changed');
    assert.equal(changedBody.data.previous_status, 'waiting_deposit');
    assert.equal(changedBody.data.order?.status, 'confirming');
    const now = await api('GET', `/orders/${order.id}`);
    assert.ok(changed.body.includes(`"order":${now.body},`), changed.body);
    assert.notEqual(changed.headers['webhook-id'], created.headers['webhook-id']);
    assert.match(String(changed.headers['webhook-id']), /^msg_[0-9a-f]{32}$/);

    assert.equal(receiver.on('/other-partner').length, 0, "another partner's endpoint hears nothing of this partner's orders");
    const log = await deliveries(endpoint.id);
    assert.deepEqual(log.map((d) => [d.event_type, d.status, d.attempt, d.status_code]), [
      ['order.status_changed', 'delivered', 1, 204],
      ['order.created', 'delivered', 1, 204],
    ]);
    assert.equal((await api('DELETE', `/webhooks/${endpoint.id}`)).statusCode, 204);
  });

  it('every move sends exactly one order.status_changed, those that stay in refunding too (docs/contract.md §7.5)', async () => {
    const endpoint = await addEndpoint('/moves', { events: ['order.status_changed'] });
    const secret = endpoint.secret ?? '';
    // The manual clock moves 30 minutes below, and the library checks webhook-timestamp against
    // Date.now(): each request is verified once, when first seen, by a receiver whose clock is the test's.
    const verified = new Map<Received, { body: EventBody; raw: string }>();
    const eventsOf = (orderId: string): { body: EventBody; raw: string }[] => {
      for (const request of receiver.on('/moves')) {
        if (verified.has(request)) continue;
        const now = mock.method(Date, 'now', () => clock.now().getTime());
        try {
          verified.set(request, { body: verify(secret, request), raw: request.body });
        } finally {
          now.mock.restore();
        }
      }
      return [...verified.values()].filter(({ body }) => body.data.order?.id === orderId);
    };
    /** Delivers what earlier moves made, runs `move`, delivers, and returns the events it made for the order. */
    const step = async (orderId: string, move: () => Promise<unknown>) => {
      await deliver();
      const before = eventsOf(orderId).length;
      await move();
      await deliver();
      return eventsOf(orderId).slice(before);
    };
    const stayed = ({ body }: { body: EventBody }) => body.data.previous_status === 'refunding' && body.data.order?.status === 'refunding';
    const toRefunding = async (order: OrderJson, amount: string): Promise<OrderJson> => {
      await simulateDeposit(h, order.id, { amount });
      await h.t.runtime.worker.tick();
      await setConfirmations(h, order.id, BTC_CONFIRMATIONS);
      await h.t.runtime.worker.tick();
      const refunding = await getOrder(h, order.id);
      assert.equal(refunding.status, 'refunding');
      return refunding;
    };
    /** A fixed order 10 % short, inside the pair's limits: its refund is held for the partner's choice. */
    const held = async (): Promise<OrderJson> => {
      const order = await createOrder(h, { rate_type: 'fixed', quote_id: await fixedQuote(h, '0.5') });
      const refunding = await toRefunding(order, new Decimal(order.amount_from_expected).times('0.9').toFixed());
      assert.deepEqual(refunding.actions, ['set_refund_address', 'continue', 'refund']);
      return refunding;
    };

    // A refund address set while the order waits in refunding for one.
    const waiting = await toRefunding(await createOrder(h, { refund_address: null }), '0.0001');
    assert.deepEqual(waiting.actions, ['set_refund_address']);
    const addressed = await step(waiting.id, () =>
      h.t.app.inject({
        method: 'PUT',
        url: `/api/v1/partner/orders/${waiting.id}/refund-address`,
        headers: { 'x-api-key': h.partner.apiKey, 'content-type': 'application/json' },
        payload: JSON.stringify({ refund_address: BTC_REFUND }),
      }),
    );
    assert.equal(addressed.length, 1);
    assert.ok(addressed.every(stayed));
    assert.deepEqual(addressed[0]?.body.data.order?.actions, [], 'the refund is requested: no action left');
    const read = await api('GET', `/orders/${waiting.id}`);
    assert.ok(addressed[0]?.raw.includes(`"order":${read.body},`), 'the Order as GET answers it after the move');

    // `refund` during the hold.
    const refundNow = await held();
    const refunded = await step(refundNow.id, () => api('POST', `/orders/${refundNow.id}/refund`));
    assert.equal(refunded.length, 1);
    assert.ok(refunded.every(stayed));
    assert.equal(refunded[0]?.body.data.order?.refund_hold_until, null);

    // The hold runs out: the worker's hold_expired (the same pass may go on to send the refund).
    const lapsing = await held();
    await advance(h, 30 * 60 * 1000);
    const lapsed = await step(lapsing.id, () => h.t.runtime.worker.tick());
    assert.equal(lapsed.filter(stayed).length, 1);
    assert.deepEqual(lapsed.filter(stayed)[0]?.body.data.order?.actions, []);

    // Over each order's whole life: one event per audit row after creation, no more, no fewer.
    for (const order of [waiting, refundNow, lapsing]) {
      await tickUntil(h, order.id, 'refunded', 3);
      await deliver();
      const trail = await h.t.db.handle.db
        .selectFrom('order_events')
        .select(['from_status', 'to_status'])
        .where('order_id', '=', order.id)
        .where('from_status', 'is not', null)
        .execute();
      const sent = eventsOf(order.id).map(({ body }) => `${String(body.data.previous_status)}→${String(body.data.order?.status)}`);
      assert.deepEqual(sent.sort(), trail.map((e) => `${String(e.from_status)}→${e.to_status}`).sort());
      assert.equal(eventsOf(order.id).filter(stayed).length, 1, `${order.id}: one refunding → refunding move`);
    }
    assert.equal(new Set(receiver.on('/moves').map((r) => r.headers['webhook-id'])).size, receiver.on('/moves').length);
    assert.equal((await api('DELETE', `/webhooks/${endpoint.id}`)).statusCode, 204);
  });

  it('signs with both secrets for 24 h after a rotation, then with the new one only', async () => {
    clock.set(new Date());
    const endpoint = await addEndpoint('/rotate');
    const rotated = await api('POST', `/webhooks/${endpoint.id}/rotate-secret`);
    assert.equal(rotated.statusCode, 200, rotated.body);
    const fresh = rotated.json<Endpoint & { previous_secret_expires_at: string }>();
    assert.notEqual(fresh.secret, endpoint.secret);
    assert.equal(fresh.previous_secret_expires_at, new Date(clock.now().getTime() + 24 * 3600_000).toISOString());

    await ping(endpoint.id);
    await deliver();
    const [both] = receiver.on('/rotate');
    assert.ok(both !== undefined);
    assert.equal(String(both.headers['webhook-signature']).split(' ').length, 2);
    // A receiver with either secret accepts it (the library finds its own signature among the two).
    assert.equal(verify(endpoint.secret ?? '', both).type, 'ping');
    assert.equal(verify(fresh.secret ?? '', both).type, 'ping');

    clock.advance(24 * 3600_000);
    await ping(endpoint.id);
    await deliver();
    const [, single] = receiver.on('/rotate');
    assert.ok(single !== undefined);
    const signature = String(single.headers['webhook-signature']);
    const at = new Date(Number(single.headers['webhook-timestamp']) * 1000);
    assert.equal(signature, new Webhook(fresh.secret ?? '').sign(String(single.headers['webhook-id']), at, single.body));
    assert.equal((await api('DELETE', `/webhooks/${endpoint.id}`)).statusCode, 204);
  });

  it('retries on the §8 schedule with the same webhook-id, fails after the last, and a manual retry redelivers', async () => {
    receiver.behave('/flaky', answer(500, 'not now'));
    const endpoint = await addEndpoint('/flaky');
    const queued = await ping(endpoint.id);
    assert.equal(queued.status, 'pending');
    await deliver();
    for (const [i, delay] of RETRY_DELAYS_MS.entries()) {
      const [log] = await deliveries(endpoint.id);
      assert.equal(log?.attempt, i + 1);
      assert.equal(log?.status_code, 500);
      assert.equal(log?.error, 'HTTP 500: not now');
      assert.ok(Number.isInteger(log?.duration_ms) && (log?.duration_ms ?? -1) >= 0, `attempt ${i + 1}: its duration, ms`);
      assert.equal(log?.next_attempt_at, new Date(clock.now().getTime() + delay).toISOString());
      clock.advance(delay - 1);
      assert.equal(await deliver(), 0, `attempt ${i + 2} is not due before its delay`);
      clock.advance(1);
      assert.equal(await deliver(), 1);
    }
    const [failed] = await deliveries(endpoint.id);
    assert.equal(failed?.status, 'failed');
    assert.equal(failed?.attempt, RETRY_DELAYS_MS.length + 1);
    assert.equal(failed?.next_attempt_at, null);
    const ids = new Set(receiver.on('/flaky').map((request) => request.headers['webhook-id']));
    assert.equal(receiver.on('/flaky').length, RETRY_DELAYS_MS.length + 1);
    assert.deepEqual([...ids], [queued.event_id]);

    receiver.behave('/flaky', answer(200, 'ok'));
    const retried = await api('POST', `/webhooks/deliveries/${queued.id}/retry`);
    assert.equal(retried.statusCode, 202, retried.body);
    assert.equal(retried.json<Delivery>().status, 'pending');
    assert.equal(await deliver(), 1);
    const [delivered] = await deliveries(endpoint.id);
    assert.deepEqual([delivered?.status, delivered?.attempt, delivered?.status_code], ['delivered', RETRY_DELAYS_MS.length + 2, 200]);
    assert.equal(receiver.on('/flaky').at(-1)?.headers['webhook-id'], queued.event_id);

    // The log has every attempt, newest first, each with its own answer and what it scheduled.
    const log = await deliveries(endpoint.id);
    const attempts = RETRY_DELAYS_MS.length + 2;
    assert.deepEqual(
      log.map((d) => [d.id, d.attempt, d.status, d.status_code]),
      Array.from({ length: attempts }, (_, i) => {
        const attempt = attempts - i;
        const status = attempt === attempts ? 'delivered' : attempt === attempts - 1 ? 'failed' : 'pending';
        return [queued.id, attempt, status, attempt === attempts ? 200 : 500];
      }),
    );
    const sentAt = receiver.on('/flaky').map((request) => Number(request.headers['webhook-timestamp']));
    const loggedAt = log.map((d) => Math.floor(Date.parse(d.last_attempt_at ?? '') / 1000)).reverse();
    assert.deepEqual(loggedAt, sentAt, "each line's time is its attempt's webhook-timestamp");
    for (const [i, line] of log.entries()) {
      const attempt = attempts - i;
      const delay = RETRY_DELAYS_MS[attempt - 1];
      const expected = attempt >= attempts - 1 || delay === undefined || line.last_attempt_at === null ? null : new Date(Date.parse(line.last_attempt_at) + delay).toISOString();
      assert.equal(line.next_attempt_at, expected, `attempt ${attempt}: the next attempt it scheduled`);
    }
    const operatorLog = await h.t.admin('GET', `/admin/v1/webhooks/${endpoint.id}/deliveries?limit=3`);
    assert.deepEqual(operatorLog.json<{ deliveries: Delivery[] }>().deliveries, log.slice(0, 3), "the operator's log is the partner's");
    const failedOnly = await api('GET', `/webhooks/${endpoint.id}/deliveries?status=failed`);
    assert.deepEqual(failedOnly.json<{ deliveries: Delivery[] }>().deliveries.map((d) => d.attempt), [attempts - 1]);

    const metrics = (await h.t.operator({ method: 'GET', url: '/metrics' })).body;
    assert.match(metrics, new RegExp(`webhook_deliveries_total\\{result="retrying"\\} ${RETRY_DELAYS_MS.length}\\b`));
    assert.match(metrics, /webhook_deliveries_total\{result="failed"\} 1\b/);
    assert.match(metrics, /webhook_queue_depth \d+/);
    assert.match(metrics, /webhook_queue_oldest_pending_seconds \d+/);
    // Another partner cannot retry it.
    const stranger = await h.t.createPartner();
    assert.equal((await api('POST', `/webhooks/deliveries/${queued.id}/retry`, undefined, stranger.apiKey)).statusCode, 404);
    assert.equal((await api('GET', `/webhooks/${endpoint.id}/deliveries`, undefined, stranger.apiKey)).statusCode, 404);
  });

  it('disables an endpoint after 5 days of failures, shows it so, and its partner re-enables it', async () => {
    receiver.behave('/down', answer(503));
    const endpoint = await addEndpoint('/down');
    const started = clock.now().toISOString();
    await ping(endpoint.id);
    await deliver();
    const listed = (await api('GET', '/webhooks')).json<{ webhooks: Endpoint[] }>().webhooks.find((e) => e.id === endpoint.id);
    assert.deepEqual([listed?.enabled, listed?.failing_since], [true, started]);

    // A second short of 5 days failing: still enabled.
    clock.advance(5 * 24 * 3600_000 - 1000);
    await ping(endpoint.id);
    await deliver();
    const failing = (await api('GET', '/webhooks')).json<{ webhooks: Endpoint[] }>().webhooks.find((e) => e.id === endpoint.id);
    assert.deepEqual([failing?.enabled, failing?.failing_since], [true, started]);

    clock.advance(1000);
    await ping(endpoint.id);
    await deliver();
    const disabled = (await api('GET', '/webhooks')).json<{ webhooks: Endpoint[] }>().webhooks.find((e) => e.id === endpoint.id);
    assert.deepEqual([disabled?.enabled, disabled?.disabled_reason], [false, 'failing']);
    assert.equal((await api('POST', `/webhooks/${endpoint.id}/test`)).statusCode, 409);

    const enabled = await api('PATCH', `/webhooks/${endpoint.id}`, { enabled: true });
    assert.equal(enabled.statusCode, 200, enabled.body);
    assert.deepEqual(
      [enabled.json<Endpoint>().enabled, enabled.json<Endpoint>().disabled_reason, enabled.json<Endpoint>().failing_since],
      [true, null, null],
    );
    assert.equal((await api('DELETE', `/webhooks/${endpoint.id}`)).statusCode, 204);
  });

  it('does not follow a redirect, and logs it', async () => {
    receiver.behave('/moved', answer(302, '', { location: 'http://10.0.0.1/steal' }));
    const endpoint = await addEndpoint('/moved');
    await ping(endpoint.id);
    await deliver();
    const [log] = await deliveries(endpoint.id);
    assert.equal(log?.status_code, 302);
    assert.equal(log?.error, 'HTTP 302: redirect to http://10.0.0.1/steal not followed');
    assert.equal(receiver.on('/steal').length, 0);
    assert.equal((await api('DELETE', `/webhooks/${endpoint.id}`)).statusCode, 204);
  });

  it('in production refuses private and non-https targets at send time and logs each in the delivery log', async () => {
    // Endpoints stored while WEBHOOK_ALLOW_PRIVATE=true, then delivered by a production worker.
    const targets = [
      'http://127.0.0.1:9/hook',
      'http://[::1]:9/hook',
      'http://169.254.169.254/latest/meta-data',
      'https://127.0.0.1:9/hook',
      'https://[::1]:9/hook',
      'https://169.254.169.254/latest',
      'https://internal.test/hook',
    ];
    const endpoints: Endpoint[] = [];
    for (const url of targets) {
      const res = await api('POST', '/webhooks', { url });
      assert.equal(res.statusCode, 201, res.body);
      endpoints.push(res.json<Endpoint>());
      await ping(endpoints.at(-1)?.id ?? '');
    }
    const production = h.t.app.runtime.webhookWorker.fork({
      transport: new WebhookSender({ allowPrivate: false, timeoutMs: 2000, resolve: async () => [{ address: '10.0.0.1', family: 4 }] }),
      metrics: createMetrics(),
      settings: { concurrency: 8, perEndpoint: 2, timeoutMs: 2000, pollMs: 50 },
    });
    assert.equal(await production.drain(), targets.length);
    const errors = [];
    for (const endpoint of endpoints) errors.push((await deliveries(endpoint.id))[0]?.error);
    const httpRefused = 'refused: the URL must be an https:// URL (http is allowed only with WEBHOOK_ALLOW_PRIVATE=true)';
    assert.deepEqual(errors, [
      httpRefused,
      httpRefused,
      httpRefused,
      'refused: the URL points at 127.0.0.1, which is not a public address',
      'refused: the URL points at ::1, which is not a public address',
      'refused: the URL points at 169.254.169.254, which is not a public address',
      'refused: 10.0.0.1 is not a public address',
    ]);
    for (const endpoint of endpoints) assert.equal((await api('DELETE', `/webhooks/${endpoint.id}`)).statusCode, 204);
  });

  it('the operator lists, reads the log of, disables, enables and redelivers any partner\'s endpoint (API and CLI)', async () => {
    receiver.behave('/operator', answer(500));
    const endpoint = await addEndpoint('/operator');
    const queued = await ping(endpoint.id);
    await deliver();
    const address = await h.t.app.listen({ port: 0, host: '127.0.0.1' });
    const dataDir = await mkdtemp(path.join(tmpdir(), 'webhooks-cli-'));
    const cli = async (...args: string[]) => {
      const run = await runAdminCli(args, { DATA_DIR: dataDir, ADMIN_API_URL: address, ADMIN_TOKEN: h.t.adminToken });
      assert.equal(run.code, 0, run.stderr);
      return run.stdout;
    };
    const listed = JSON.parse(await cli('webhooks', 'list', '--partner', h.partner.id, '--json')) as { webhooks: (Endpoint & { partner_id: string })[] };
    assert.ok(listed.webhooks.some((e) => e.id === endpoint.id && e.partner_id === h.partner.id));
    assert.match(await cli('webhooks', 'list'), new RegExp(endpoint.id));
    const log = await cli('webhooks', 'deliveries', endpoint.id);
    assert.match(log, new RegExp(`${queued.id}.*ping.*pending.*500`));

    assert.match(await cli('webhooks', 'disable', endpoint.id), /disabled \(operator\)/);
    // Its partner cannot undo the operator's switch.
    assert.equal((await api('PATCH', `/webhooks/${endpoint.id}`, { enabled: true })).statusCode, 409);
    assert.equal(await deliver(), 0, 'a disabled endpoint gets no attempt');
    assert.match(await cli('webhooks', 'enable', endpoint.id), /: enabled,/);

    receiver.behave('/operator', answer(204));
    assert.match(await cli('webhooks', 'redeliver', queued.id), new RegExp(`webhook-id ${queued.event_id}\\) is due now`));
    assert.equal(await deliver(), 1);
    const [delivered] = await deliveries(endpoint.id);
    assert.deepEqual([delivered?.status, delivered?.attempt], ['delivered', 2]);
    const missing = await h.t.admin('POST', '/admin/v1/webhooks/deliveries/00000000-0000-4000-8000-000000000000/retry');
    assert.equal(missing.statusCode, 404);
    assert.equal((await api('DELETE', `/webhooks/${endpoint.id}`)).statusCode, 204);
  });

  it('an attempt that outlives its lease records nothing: the claim that made the delivery again stands', async () => {
    receiver.behave('/late', answer(200, 'ok'));
    const endpoint = await addEndpoint('/late');
    const queued = await ping(endpoint.id);
    // Worker A sends, then stalls past its lease before its answer is known (a paused process).
    let answerA: (outcome: { delivered: boolean; statusCode: number | null; durationMs: number; error: string | null; bytesRead: number }) => void = () => undefined;
    const stalled = h.t.app.runtime.webhookWorker.fork({
      transport: { send: () => new Promise((resolve) => (answerA = resolve)), close: () => undefined },
      metrics: createMetrics(),
      settings: { concurrency: 1, perEndpoint: 1, timeoutMs: 1000, pollMs: 50 },
    });
    assert.equal(await stalled.tick(), 1);
    // Just past A's lease (its 1 s bound and the 2 s margin): no other test's retry becomes due.
    clock.advance(3_001);
    // Worker B claims the lapsed lease and delivers.
    assert.equal(await deliver(), 1);
    answerA({ delivered: false, statusCode: 500, durationMs: 60_000, error: 'HTTP 500: late', bytesRead: 6 });
    await stalled.settled();

    const log = await deliveries(endpoint.id);
    assert.deepEqual(
      log.map((d) => [d.id, d.attempt, d.status, d.status_code]),
      [[queued.id, 1, 'delivered', 200]],
      "A's late failure neither overwrote B's delivery nor added a second attempt 1",
    );
    assert.ok(h.t.logs.some((line) => line.includes('webhook attempt outlived its lease') && line.includes(queued.id)));
    assert.equal((await api('DELETE', `/webhooks/${endpoint.id}`)).statusCode, 204);
  });

  it('attempts that end while the worker is claiming are followed by a claim at once, not by the poll', async () => {
    const endpoint = await addEndpoint('/claiming');
    for (let i = 0; i < 6; i++) await ping(endpoint.id);
    const answers: (() => void)[] = [];
    const worker = h.t.app.runtime.webhookWorker.fork({
      transport: {
        send: () => new Promise((resolve) => answers.push(() => resolve({ delivered: true, statusCode: 204, durationMs: 1, error: null, bytesRead: 0 }))),
        close: () => undefined,
      },
      metrics: createMetrics(),
      // A poll far longer than this test: only a claim made when a slot frees can deliver in time.
      settings: { concurrency: 4, perEndpoint: 2, timeoutMs: 2000, pollMs: 600_000 },
    });
    // The race, made certain: a claim finds the endpoint's 2 slots taken (0 claimed), and both
    // attempts end before that claim returns, so no one is waiting to be woken by them.
    const claim = worker.tick.bind(worker);
    worker.tick = async () => {
      const started = await claim();
      if (started === 0) {
        for (const answer of answers.splice(0)) answer();
        await worker.settled();
      }
      return started;
    };
    worker.start();
    try {
      const allDelivered = async () => {
        const log = await deliveries(endpoint.id);
        return log.length === 6 && log.every((d) => d.status === 'delivered');
      };
      await waitFor('all 6 pings delivered', allDelivered, { timeoutMs: 10_000, intervalMs: 20 });
    } finally {
      await worker.stop();
    }
    assert.equal((await api('DELETE', `/webhooks/${endpoint.id}`)).statusCode, 204);
  });

  it('a hanging receiver holds only its own slots: another endpoint is delivered and the API answers meanwhile', async () => {
    receiver.hang('/hang');
    const slow = await addEndpoint('/hang');
    const fast = await addEndpoint('/fast');
    for (let i = 0; i < 6; i++) await ping(slow.id);
    // Due a moment after the slow endpoint's: on equal times the claim's order among them is
    // the sort's, not creation's (PostgreSQL's top-N sort is not stable).
    clock.advance(1);
    await ping(fast.id);
    const TIMEOUT_MS = 1500;
    const worker = h.t.app.runtime.webhookWorker.fork({
      transport: new WebhookSender({ allowPrivate: true, timeoutMs: TIMEOUT_MS }),
      metrics: createMetrics(),
      settings: { concurrency: 4, perEndpoint: 2, timeoutMs: TIMEOUT_MS, pollMs: 50 },
    });
    // The oldest due are the slow endpoint's: it gets its 2 slots, and the next claim skips it.
    assert.equal(await worker.tick(), 2);
    assert.equal(await worker.tick(), 1);
    let hangEnded = false;
    const settling = worker.settled().then(() => (hangEnded = true));
    // While the receiver hangs, the other endpoint's delivery arrives and the API answers: neither waits for it.
    await waitFor('the other endpoint delivered', () => receiver.on('/fast').length === 1, { timeoutMs: TIMEOUT_MS, intervalMs: 10 });
    const listed = await api('GET', '/webhooks');
    assert.equal(listed.statusCode, 200, listed.body);
    assert.equal(hangEnded, false, 'both answered while the hanging attempts were still waiting');
    await settling;
    assert.equal(receiver.on('/fast').length, 1);
    assert.equal(receiver.on('/hang').length, 2);
    const slowLog = await deliveries(slow.id);
    const attempted = slowLog.filter((d) => d.attempt > 0);
    assert.deepEqual(attempted.map((d) => d.error), [`timed out after ${TIMEOUT_MS} ms`, `timed out after ${TIMEOUT_MS} ms`]);
    // The log's duration is the attempt's own: the whole timeout, give or take the timer's grain.
    assert.ok(attempted.every((d) => (d.duration_ms ?? 0) >= TIMEOUT_MS - 5 && (d.duration_ms ?? Infinity) < TIMEOUT_MS + 2000), JSON.stringify(attempted));
    // The pings not attempted yet are in the log too, queued (attempt 0, pending, due now).
    const queued = slowLog.filter((d) => d.attempt === 0);
    assert.equal(queued.length, 4);
    assert.ok(queued.every((d) => d.status === 'pending' && d.status_code === null && d.last_attempt_at === null && d.next_attempt_at !== null));
    assert.equal((await deliveries(fast.id))[0]?.status, 'delivered');
    for (const endpoint of [slow, fast]) assert.equal((await api('DELETE', `/webhooks/${endpoint.id}`)).statusCode, 204);
  });

  it('workers claiming side by side (SKIP LOCKED) take each delivery once and never pass the per-endpoint cap together', async () => {
    await deliver();
    const targets = [await addEndpoint('/crowd-a'), await addEndpoint('/crowd-b'), await addEndpoint('/crowd-c')];
    const queued: string[] = [];
    for (const endpoint of targets) for (let i = 0; i < 8; i++) queued.push((await ping(endpoint.id)).event_id);
    const PER_ENDPOINT = 2;
    // A transport that holds every answer until the round ends: what a worker claimed stays leased meanwhile.
    const inFlight = new Map<string, number>();
    const peak = new Map<string, number>();
    const sent: string[] = [];
    const held: (() => void)[] = [];
    const transport = {
      send: (url: string, headers: Record<string, string>) => {
        sent.push(headers['webhook-id'] ?? '');
        const now = (inFlight.get(url) ?? 0) + 1;
        inFlight.set(url, now);
        peak.set(url, Math.max(peak.get(url) ?? 0, now));
        return new Promise<SendOutcome>((resolve) =>
          held.push(() => {
            inFlight.set(url, (inFlight.get(url) ?? 1) - 1);
            resolve({ delivered: true, statusCode: 204, durationMs: 1, error: null, bytesRead: 0 });
          }),
        );
      },
      close: () => undefined,
    };
    const workers = Array.from({ length: 6 }, () =>
      h.t.app.runtime.webhookWorker.fork({ transport, metrics: createMetrics(), settings: { concurrency: 4, perEndpoint: PER_ENDPOINT, timeoutMs: 10_000, pollMs: 50 } }),
    );
    for (let round = 0; round < 40 && sent.length < queued.length; round++) {
      // Every worker claims at the same moment; then the answers come and the leases are released.
      await Promise.all(workers.map((worker) => worker.tick()));
      for (const release of held.splice(0)) release();
      await Promise.all(workers.map((worker) => worker.settled()));
    }
    assert.deepEqual([...sent].sort(), [...queued].sort(), 'every delivery was sent, and by one worker only');
    for (const endpoint of targets) {
      assert.equal(peak.get(endpoint.url), PER_ENDPOINT, `${endpoint.url}: ${PER_ENDPOINT} attempts at most at once, across the six workers`);
      const log = await deliveries(endpoint.id);
      assert.equal(log.length, 8);
      assert.ok(log.every((line) => line.status === 'delivered' && line.attempt === 1), JSON.stringify(log));
      assert.equal((await api('DELETE', `/webhooks/${endpoint.id}`)).statusCode, 204);
    }
  });

  it('an event commits with the move it reports or not at all (the outbox is in the move\'s transaction)', async () => {
    await deliver();
    // Earlier tests moved the clock days on: prices as of now, for the orders below.
    await advance(h, 0);
    const partner = await h.t.createPartner({ name: 'Outbox', max_open_orders: 1 });
    const endpoint = await addEndpoint('/outbox', {}, partner.apiKey);
    const order = await createOrder(h, {}, partner.apiKey);
    // Order creation: a refused order (over the partner's open-order cap) leaves no event behind.
    const refused = await h.t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { 'x-api-key': partner.apiKey, 'content-type': 'application/json' },
      payload: { coin_from: 'BTC', network_from: 'BTC', coin_to: 'ETH', network_to: 'ETH', amount_from: 0.5, rate_type: 'float', recipient_address: ETH_RECIPIENT },
    });
    assert.equal(refused.statusCode, 422, refused.body);
    assert.equal(await deliver(), 1);
    assert.deepEqual(receiver.on('/outbox').map((r) => (JSON.parse(r.body) as EventBody).type), ['order.created']);

    // A move whose transaction fails after the outbox write: neither the move nor its event stays.
    await assert.rejects(
      h.t.runtime.lifecycle.apply(order.id, 'cancel', {
        actor: { keyId: partner.keyId },
        inTransaction: () => Promise.reject(new Error('a write after the outbox failed')),
      }),
      /a write after the outbox failed/,
    );
    assert.equal((await getOrder(h, order.id, partner.apiKey)).status, 'waiting_deposit');
    assert.equal(await deliver(), 0, 'no event of a move that did not happen');
    // The manual clock stands still: on equal times, order.created sorts first by its type.
    const stored = () =>
      h.t.db.handle.db.selectFrom('webhook_events').select(['type']).where('order_id', '=', order.id).orderBy('created_at').orderBy('type').execute();
    assert.deepEqual((await stored()).map((e) => e.type), ['order.created']);

    // The same move, committed: its event with it.
    assert.equal((await h.t.runtime.lifecycle.apply(order.id, 'cancel', { actor: { keyId: partner.keyId } })).ok, true);
    assert.deepEqual((await stored()).map((e) => e.type), ['order.created', 'order.status_changed']);
    assert.equal(await deliver(), 1);
    const cancelled = JSON.parse(receiver.on('/outbox')[1]?.body ?? '{}') as EventBody;
    assert.deepEqual([cancelled.type, cancelled.data.previous_status, cancelled.data.order?.status], ['order.status_changed', 'waiting_deposit', 'expired']);
    assert.equal((await api('DELETE', `/webhooks/${endpoint.id}`, undefined, partner.apiKey)).statusCode, 204);
  });

  it('the queue gauges: deliveries due and how long the oldest has waited, a disabled endpoint\'s apart', async () => {
    await deliver();
    const worker = h.t.app.runtime.webhookWorker;
    const scrape = async () => (await h.t.operator({ method: 'GET', url: '/metrics' })).body;
    const value = (metrics: string, line: string) => Number(new RegExp(`^${line.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(metrics)?.[1] ?? NaN);
    await worker.refreshQueueStats();
    const before = await scrape();
    assert.equal(value(before, 'webhook_queue_depth'), 0);
    assert.equal(value(before, 'webhook_queue_oldest_pending_seconds'), 0);
    const deliveredBefore = value(before, 'webhook_deliveries_total{result="delivered"}');

    const live = await addEndpoint('/gauge-live');
    const off = await addEndpoint('/gauge-off');
    await ping(live.id);
    clock.advance(30_000);
    await ping(live.id);
    await ping(off.id);
    assert.equal((await api('PATCH', `/webhooks/${off.id}`, { enabled: false })).statusCode, 200);
    clock.advance(60_000);
    await worker.refreshQueueStats();
    const waiting = await scrape();
    assert.equal(value(waiting, 'webhook_queue_depth'), 2, "the disabled endpoint's delivery is not the workers' queue");
    assert.equal(value(waiting, 'webhook_queue_oldest_pending_seconds'), 90);

    assert.equal(await deliver(), 2);
    await worker.refreshQueueStats();
    const drained = await scrape();
    assert.equal(value(drained, 'webhook_queue_depth'), 0);
    assert.equal(value(drained, 'webhook_queue_oldest_pending_seconds'), 0);
    assert.equal(value(drained, 'webhook_deliveries_total{result="delivered"}'), deliveredBefore + 2);
    for (const endpoint of [live, off]) assert.equal((await api('DELETE', `/webhooks/${endpoint.id}`)).statusCode, 204);
  });
});
