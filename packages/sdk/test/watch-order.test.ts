import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CreateOrderRequest, Order } from '../src/index.js';
import { startSdkServer, type SdkServer } from './sdk-server.js';

/**
 * watchOrder (docs/contract.md §10.11) against the whole app over HTTP: the order once per version and in
 * order until final, over the status stream; across a dropped connection (resumed with
 * Last-Event-ID, nothing missed or repeated); and by polling where no stream can be had.
 */

const BTC_TO_ETH: CreateOrderRequest = {
  coin_from: 'BTC',
  network_from: 'BTC',
  coin_to: 'ETH',
  network_to: 'ETH',
  amount_from: '0.1',
  rate_type: 'float',
  recipient_address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
  refund_address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
};
const urlOf = (input: Parameters<typeof fetch>[0]): string => (input instanceof Request ? input.url : input.toString());

describe('SDK watchOrder', () => {
  let s: SdkServer;
  before(async () => {
    s = await startSdkServer();
  });
  after(() => s.t.close());

  /** Collects what `watch` yields while the worker runs (every 20 ms), until it returns. */
  async function collect(watch: AsyncGenerator<Order>, onFirst: () => Promise<void>): Promise<Order[]> {
    const seen: Order[] = [];
    let first: Promise<void> | undefined;
    const done = (async () => {
      for await (const order of watch) {
        seen.push(order);
        first ??= onFirst();
      }
    })();
    let finished = false;
    void done.finally(() => (finished = true));
    const deadline = Date.now() + 20_000;
    while (!finished && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (first !== undefined) await s.t.runtime.worker.tick();
    }
    await done;
    await first;
    return seen;
  }

  function assertEveryVersion(seen: Order[]): void {
    assert.deepEqual(seen.map((order) => order.version), seen.map((_, i) => i), `versions ${seen.map((order) => order.version).join(', ')}`);
    assert.equal(seen.at(-1)?.status, 'completed');
  }

  it('yields the current state, then every version once and in order, until final, over the stream', async () => {
    const requests: string[] = [];
    const client = s.client({
      apiKey: s.partner.sandboxKey,
      fetch: (input, init) => {
        requests.push(urlOf(input));
        return fetch(input, init);
      },
    });
    const order = await client.createOrder(BTC_TO_ETH);
    const seen = await collect(client.watchOrder(order.id), async () => {
      await client.sandboxDeposit(order.id);
    });
    assertEveryVersion(seen);
    // Amounts stay exact decimal strings, as everywhere in the SDK.
    assert.equal(seen.at(-1)?.amount_from_received, '0.1');
    assert.equal(requests.filter((url) => url.includes('/partner/orders/stream')).length, 1);
    assert.ok(!requests.some((url) => url.endsWith(`/partner/orders/${order.id}`)), 'no polling');
    // The batch read agrees: the same version, the same status.
    const statuses = await client.orderStatuses([order.id, '00000000-0000-4000-8000-000000000000']);
    assert.deepEqual(statuses.orders.map((line) => [line.id, line.status, line.version]), [[order.id, 'completed', seen.at(-1)?.version]]);
  });

  it('reconnects with Last-Event-ID after a dropped connection: nothing missed, nothing repeated', async () => {
    const resumes: (string | null)[] = [];
    let streams = 0;
    const client = s.client({
      apiKey: s.partner.sandboxKey,
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        if (!urlOf(input).includes('/partner/orders/stream')) return res;
        resumes.push(new Headers(init?.headers).get('last-event-id'));
        streams += 1;
        if (streams > 1 || res.body === null) return res;
        // The first connection breaks after its first chunk (the order's current state).
        const reader: ReadableStreamDefaultReader<Uint8Array> = res.body.getReader();
        let sent = false;
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (sent) {
              await reader.cancel();
              controller.error(new Error('connection reset'));
              return;
            }
            const chunk = await reader.read();
            if (chunk.done) controller.close();
            else controller.enqueue(chunk.value);
            sent = true;
          },
        });
        return new Response(body, { status: res.status, headers: res.headers });
      },
    });
    const order = await client.createOrder(BTC_TO_ETH);
    await client.sandboxDeposit(order.id);
    const seen = await collect(client.watchOrder(order.id), () => Promise.resolve());
    assertEveryVersion(seen);
    assert.equal(resumes[0], null);
    assert.match(String(resumes[1]), new RegExp(`^${order.id}:\\d+$`));
  });

  it('polls where the stream cannot be had (an older server: 404), still each version once and in order', async () => {
    const client = s.client({
      apiKey: s.partner.sandboxKey,
      fetch: (input, init) =>
        urlOf(input).includes('/partner/orders/stream')
          ? Promise.resolve(new Response(JSON.stringify({ detail: 'no such route', code: 'not_found' }), { status: 404, headers: { 'content-type': 'application/json' } }))
          : fetch(input, init),
    });
    const order = await client.createOrder(BTC_TO_ETH);
    await client.sandboxDeposit(order.id);
    const waitsBefore = s.waits.length;
    const seen: Order[] = [];
    for await (const moved of client.watchOrder(order.id, { pollIntervalMs: 1000 })) seen.push(moved);
    const versions = seen.map((moved) => moved.version);
    assert.deepEqual(versions, [...new Set(versions)].sort((a, b) => a - b), 'increasing, none repeated');
    assert.equal(seen.at(-1)?.status, 'completed');
    assert.ok(s.waits.length > waitsBefore, 'it polled');
  });
});
