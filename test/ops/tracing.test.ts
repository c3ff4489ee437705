// test-isolation: process (scripts/run-tests.ts): tracing registers a global provider, context manager and propagator.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { startTracing, stopTracing, tracingEnabled } from '../../src/tracing/tracing.js';
import { depositAndRun, ETH_RECIPIENT, BTC_REFUND, exactJson, startHarness, type Harness, type OrderJson } from '../lifecycle/lifecycle-helpers.js';
import { ManualClock } from '../helpers/test-app.js';
import { WebhookReceiver } from '../webhooks/webhook-receiver.js';

/**
 * A span time ([seconds, nanoseconds]) as one number to compare: `>=` on the pairs compared
 * them as text ("1796,5" after "1796,123456"), and the test failed now and then.
 */
const nanoseconds = ([seconds, nanos]: ReadableSpan['startTime']): bigint => BigInt(seconds) * 1_000_000_000n + BigInt(nanos);

/** The trace a wallet's request starts: its id and its span, as a W3C traceparent carries them. */
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN_ID = '00f067aa0ba902b7';

/**
 * Tracing on: one trace from the partner's request through the database, the worker's steps on
 * the order (in what the chain saw, the exchange, the payout) and the webhook delivery that tells
 * the partner, though those run after the request has answered. Spans go to an in-memory exporter.
 */
describe('tracing: a request traced through the database, the worker and the webhook delivery', () => {
  const exporter = new InMemorySpanExporter();
  const receiver = new WebhookReceiver();
  let h: Harness;

  before(async () => {
    // Before the database opens, as the server and the worker start it.
    await startTracing({ serviceName: 'exchange-api-test', processor: new SimpleSpanProcessor(exporter) });
    await receiver.start();
    h = await startHarness({}, new ManualClock(new Date()));
  });
  after(async () => {
    await h.t.close();
    await receiver.close();
    await stopTracing();
  });

  const inTrace = (): ReadableSpan[] => exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === TRACE_ID);
  const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

  it('continues the caller\'s trace from POST order to the completed order\'s webhook', async () => {
    assert.ok(tracingEnabled());
    const endpoint = await h.t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/webhooks',
      headers: { 'x-api-key': h.partner.apiKey, 'content-type': 'application/json' },
      payload: JSON.stringify({ url: receiver.url('/traced') }),
    });
    assert.equal(endpoint.statusCode, 201, endpoint.body);

    const created = await h.t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { 'x-api-key': h.partner.apiKey, 'content-type': 'application/json', traceparent: `00-${TRACE_ID}-${CALLER_SPAN_ID}-01` },
      payload: JSON.stringify({ coin_from: 'BTC', network_from: 'BTC', coin_to: 'ETH', network_to: 'ETH', rate_type: 'float', amount_from: '0.5', recipient_address: ETH_RECIPIENT, refund_address: BTC_REFUND }),
    });
    assert.equal(created.statusCode, 201, created.body);
    const order = exactJson<OrderJson>(created);

    await depositAndRun(h, order.id, 'completed');
    await h.t.app.runtime.webhookWorker.drain();
    assert.ok(receiver.on('/traced').length > 0, 'the webhooks were delivered');

    const spans = inTrace();
    const names = spans.map((span) => span.name);
    // The request: its server span is the caller's child; the database queries it made are in it.
    const request = spans.find((span) => parentOf(span) === CALLER_SPAN_ID);
    assert.ok(request !== undefined, `no span continues the caller's: ${names.join(', ')}`);
    const requestQueries = spans.filter((span) => span.name.startsWith('db ') && nanoseconds(span.startTime) >= nanoseconds(request.startTime) && nanoseconds(span.endTime) <= nanoseconds(request.endTime));
    assert.ok(requestQueries.some((span) => span.name === 'db INSERT' || span.name === 'db SELECT'), `no query in the request: ${names.join(', ')}`);
    for (const query of requestQueries) {
      assert.equal(query.attributes['db.system.name'], 'postgresql');
      assert.equal(typeof query.attributes['db.query.text'], 'string');
    }
    // After the answer, in the same trace: the worker on the order, then the webhook delivery.
    for (const expected of ['order chain deposit_seen', 'order step exchanging', 'order step sending']) {
      const step = spans.find((span) => span.name === expected);
      assert.ok(step !== undefined, `no "${expected}" span in the trace: ${names.join(', ')}`);
      assert.equal(step.attributes['order.id'], order.id);
    }
    assert.ok(spans.some((span) => span.name.startsWith('webhook delivery order.')), `no webhook delivery span in the trace: ${names.join(', ')}`);
    // One tree: every span's parent is in the trace, or is the caller's span.
    const ids = new Set(spans.map((span) => span.spanContext().spanId));
    for (const span of spans) {
      const parent = parentOf(span);
      assert.ok(parent === CALLER_SPAN_ID || (parent !== undefined && ids.has(parent)), `${span.name} hangs off a span outside the trace`);
    }
  });

  it('stores no trace context where a move is made outside any span', async () => {
    // The webhook delivery of a later event carries the stored context; an event written with no
    // span active (here: a fresh order made without a traceparent, its request still a span) is a
    // trace of its own, never attached to another order's.
    exporter.reset();
    const res = await h.t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { 'x-api-key': h.partner.apiKey, 'content-type': 'application/json' },
      payload: JSON.stringify({ coin_from: 'BTC', network_from: 'BTC', coin_to: 'ETH', network_to: 'ETH', rate_type: 'float', amount_from: '0.5', recipient_address: ETH_RECIPIENT }),
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(inTrace().length, 0, 'a request without a traceparent starts a trace of its own');
    assert.ok(exporter.getFinishedSpans().length > 0);
  });
});
