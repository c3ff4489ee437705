import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  AmountOutOfRangeError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  NetworkError,
  NotFoundError,
  PairUnavailableError,
  PartnerApiError,
  PermissionError,
  QuoteInvalidError,
  RateLimitError,
  ServerError,
  UnprocessableError,
  verifyWebhook,
  type CreateOrderRequest,
  type RatesQuery,
  type Order,
} from '../src/index.js';
import { GENERATED_DIR, sdkSources } from '../../../scripts/sdk-generate.js';
import { WebhookReceiver } from '../../../test/webhooks/webhook-receiver.js';
import { startSdkServer, type SdkServer } from './sdk-server.js';

/** The SDK against the whole app over HTTP: every partner endpoint, every error type, exact amounts. */

const ETH_RECIPIENT = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const BTC_RECIPIENT = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const BTC_REFUND = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
const urlOf = (input: Parameters<typeof fetch>[0]): string => (input instanceof Request ? input.url : input.toString());
const BTC_TO_ETH: CreateOrderRequest = {
  coin_from: 'BTC',
  network_from: 'BTC',
  coin_to: 'ETH',
  network_to: 'ETH',
  amount_from: '0.1',
  rate_type: 'float',
  recipient_address: ETH_RECIPIENT,
  refund_address: BTC_REFUND,
};

describe('SDK client against the server', () => {
  let s: SdkServer;
  before(async () => {
    s = await startSdkServer();
  });
  after(() => s.t.close());

  it('lists currencies: limits as exact decimal strings, counts as numbers', async () => {
    const currencies = await s.client({ apiKey: undefined }).currencies();
    const btc = currencies.find((c) => c.coin === 'BTC' && c.network === 'BTC');
    assert.ok(btc, 'BTC is in the catalog');
    assert.equal(typeof btc.min_amount, 'string');
    assert.match(btc.min_amount, /^\d+(\.\d+)?$/);
    assert.equal(btc.decimals, 8);
    assert.equal(typeof btc.min_confirmations, 'number');
  });

  it('quotes by amount and by amount_to (v1.1), without and with a key', async () => {
    const anonymous = s.client({ apiKey: undefined });
    const forward = await anonymous.rates({ coin_from: 'BTC', coin_to: 'ETH', amount: '0.1' });
    assert.equal(forward.amount_from, '0.1');
    assert.equal(forward.expires_in, null);
    const reverse = await anonymous.rates({ coin_from: 'BTC', coin_to: 'ETH', amount_to: forward.amount_to });
    assert.equal(reverse.amount_from, '0.1', 'the reverse quote of the forward payout asks the same amount');
    const fixed = await s.client().rates({ coin_from: 'BTC', coin_to: 'ETH', amount: '0.1', rate_type: 'fixed' });
    assert.equal(typeof fixed.quote_id, 'string');
    assert.equal(typeof fixed.expires_in, 'number');
  });

  it('creates an order and reads it back by id and short id, with either key header', async () => {
    const client = s.client();
    const order = await client.createOrder(BTC_TO_ETH);
    assert.equal(order.status, 'waiting_deposit');
    assert.equal(order.amount_from_expected, '0.1');
    assert.equal(typeof order.amount_to_expected, 'string');
    const byShortId = await s.client({ keyHeader: 'x-api-key' }).getOrder(order.short_id.toLowerCase());
    assert.equal(byShortId.id, order.id);
    assert.deepEqual(await client.getOrder(order.id), byShortId);
  });

  it('v1.2 (docs/contract.md §10.8): external_id and metadata on the order, endUserIp sent as X-End-User-IP, the 409 typed', async () => {
    const sent: Headers[] = [];
    const client = s.client({
      fetch: async (input, init = {}) => {
        if (init.method === 'POST') sent.push(new Headers(init.headers));
        return fetch(input, init);
      },
    });
    const externalId = `sdk-${Date.now()}`;
    const order = await client.createOrder({ ...BTC_TO_ETH, external_id: externalId, metadata: { user: 'u-1' } }, { endUserIp: '198.51.100.23' });
    assert.equal(order.external_id, externalId);
    assert.deepEqual(order.metadata, { user: 'u-1' });
    assert.equal(sent[0]?.get('x-end-user-ip'), '198.51.100.23');
    const stored = await s.t.admin('GET', `/admin/v1/orders/${order.id}`);
    assert.equal(stored.json<{ end_user_ip: string }>().end_user_ip, '198.51.100.23');
    const again = await client.createOrder({ ...BTC_TO_ETH, external_id: externalId }).then(
      () => assert.fail('a second order with the external_id was made'),
      (error: unknown) => error,
    );
    assert.ok(again instanceof ConflictError);
    assert.equal(again.code, 'external_id_conflict');
    assert.equal(again.body.order_id, order.id);
  });

  it('keeps every digit of an amount beyond 15 significant digits, both ways', async () => {
    // 19 significant digits: a float keeps about 16 (1.2345678901234568).
    const amount = '1.234567890123456789';
    const client = s.client();
    const quote = await client.rates({ coin_from: 'ETH', coin_to: 'BTC', amount });
    assert.equal(quote.amount_from, amount);
    const order = await client.createOrder({ ...BTC_TO_ETH, coin_from: 'ETH', network_from: 'ETH', coin_to: 'BTC', network_to: 'BTC', amount_from: amount, recipient_address: BTC_RECIPIENT, refund_address: ETH_RECIPIENT });
    assert.equal(order.amount_from_expected, amount);
    assert.equal((await client.getOrder(order.id)).amount_from_expected, amount);
    assert.notEqual(String(Number(amount)), amount, 'the amount is one a float would round');
  });

  it('orders by amount_to (v1.1)', async () => {
    const client = s.client();
    const quote = await client.rates({ coin_from: 'BTC', coin_to: 'ETH', amount_to: '2' });
    const { amount_from: _unused, ...rest } = BTC_TO_ETH;
    const order = await client.createOrder({ ...rest, amount_to: '2' });
    assert.equal(order.amount_from_expected, quote.amount_from);
    assert.ok(Number(order.amount_to_expected) >= 2, order.amount_to_expected);
  });

  it('lists orders one page at a time, and iterates across every page', async () => {
    const client = s.client();
    const created: string[] = [];
    for (let i = 0; i < 3; i++) {
      s.clock.advance(1); // a created_at of its own: the order of the list is by time first
      created.push((await client.createOrder(BTC_TO_ETH)).id);
    }
    const page = await client.listOrders({ limit: 2 });
    assert.equal(page.orders.length, 2);
    assert.equal(typeof page.next_cursor, 'string');
    const all: Order[] = [];
    for await (const order of client.orders({ limit: 2 })) all.push(order);
    const ids = all.map((order) => order.id);
    assert.equal(new Set(ids).size, ids.length, 'no order twice');
    assert.deepEqual(ids.slice(0, 3), created.reverse(), 'newest first');
    assert.ok(ids.length >= 5, `every order of the partner, across pages (${ids.length})`);
    for await (const order of client.orders({ coin_from: 'ETH' })) assert.equal(order.coin_from, 'ETH');
  });

  it('validates addresses (v1.1)', async () => {
    const client = s.client();
    assert.deepEqual(await client.validateAddress({ coin: 'ETH', network: 'ETH', address: ETH_RECIPIENT }), { valid: true, detail: null, is_memo_required: false });
    const wrong = await client.validateAddress({ coin: 'ETH', network: 'ETH', address: '0x9858effd232b4033e47d90003d41ec34ecaeda9X' });
    assert.equal(wrong.valid, false);
    assert.equal(typeof wrong.detail, 'string');
  });

  it("returns the deposit's QR code as SVG (v1.1)", async () => {
    const client = s.client();
    const order = await client.createOrder(BTC_TO_ETH);
    const svg = await client.orderQrSvg(order.short_id);
    assert.match(svg, /^<svg[\s\S]*<\/svg>\s*$/);
  });

  it('answers who the key belongs to', async () => {
    const account = await s.client().account();
    assert.equal(account.id, s.partner.id);
    assert.equal(account.status, 'active');
  });

  it('stats (docs/contract.md §7.8): live orders counted by status, volume and commission as exact strings; sandbox apart', async () => {
    const partner = await s.t.createPartner({ rate_limit_per_minute: 100_000 });
    const client = s.client({ apiKey: partner.apiKey });
    const start = s.clock.now().toISOString();
    const order = await client.createOrder(BTC_TO_ETH);
    await client.createOrder(BTC_TO_ETH); // waiting: counted, no commission
    for (const [step, body] of [['deposit', {}], ['confirmations', { count: 2 }]] as const) {
      const res = await s.t.admin('POST', `/admin/v1/simulator/orders/${order.id}/${step}`, body);
      assert.equal(res.statusCode, 200, res.body);
    }
    const done = await client.waitForStatus(order.id, 'completed', { intervalMs: 1000 });
    assert.ok(done.partner_fee !== null, 'recorded at the exchange');
    const sandboxKey = await s.t.admin('POST', `/admin/v1/partners/${partner.id}/keys`, { sandbox: true });
    const sandbox = s.client({ apiKey: sandboxKey.json<{ api_key: string }>().api_key });
    const practice = await sandbox.createOrder(BTC_TO_ETH);
    await sandbox.sandboxDeposit(practice.id);
    await sandbox.waitForStatus(practice.id, 'completed', { intervalMs: 1000 });

    const stats = await client.stats({ from: start });
    assert.equal(stats.from, start);
    assert.equal(stats.orders_by_status.completed, 1, 'the sandbox order is not counted');
    assert.equal(stats.orders_by_status.waiting_deposit, 1);
    assert.equal(stats.commission.orders, 1);
    assert.deepEqual(stats.commission.by_coin, [{ coin: 'ETH', amount: done.partner_fee.amount, usd: done.partner_fee.usd }], 'every decimal of partner_fee');
    assert.equal(stats.commission.usd, done.partner_fee.usd);
    assert.match(stats.volume_usd, /^\d+(\.\d+)?$/);
    assert.ok(Number(stats.volume_usd) > 0, stats.volume_usd);

    const before = await client.stats({ to: start });
    assert.equal(before.orders_by_status.completed, 0);
    assert.equal(before.commission.usd, '0');
    await assert.rejects(client.stats({ from: start, to: before.from }), BadRequestError);
  });

  it('runs a sandbox order to completed: create, simulated deposit, waitForStatus', async () => {
    const client = s.client({ apiKey: s.partner.sandboxKey });
    const order = await client.createOrder(BTC_TO_ETH);
    assert.equal(order.sandbox, true);
    const deposited = await client.sandboxDeposit(order.id);
    assert.equal(deposited.id, order.id);
    const waitsBefore = s.waits.length;
    const done = await client.waitForStatus(order.id, 'completed', { intervalMs: 1000 });
    assert.equal(done.status, 'completed');
    assert.equal(done.amount_from_received, '0.1');
    assert.notEqual(done.payout_txid, null);
    assert.ok(s.waits.length > waitsBefore, 'it polled');
    // A second deposit is refused, and not retried (it is no idempotent call).
    await assert.rejects(client.sandboxDeposit(order.id), (error: unknown) => error instanceof ConflictError && error.status === 409);
    // An order that ended otherwise ends the wait: completed is no longer reachable for it.
    await assert.rejects(client.waitForStatus(order.id, 'refunded', { intervalMs: 1000 }), /ended completed/);
  });

  it('order actions (v1.1): cancel, set the refund address, and continue or refund a held refund', async () => {
    const client = s.client({ apiKey: s.partner.sandboxKey });
    const waiting = await client.createOrder(BTC_TO_ETH);
    assert.ok(waiting.actions.includes('cancel'), waiting.actions.join());
    const moved = await client.setRefundAddress(waiting.id, { refund_address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' });
    assert.equal(moved.id, waiting.id);
    const cancelled = await client.cancelOrder(waiting.id);
    assert.equal(cancelled.status, 'expired');
    assert.equal(cancelled.status_reason, 'cancelled');
    await assert.rejects(client.cancelOrder(waiting.id), ConflictError);

    // A fixed-rate order paid 20% more than expected misses its rate; the pair still takes the
    // amount, so the refund is held for the partner's choice.
    const held = async () => {
      const order = await client.createOrder({ ...BTC_TO_ETH, rate_type: 'fixed' });
      await client.sandboxDeposit(order.id, { amount: '0.12' });
      return client.waitForStatus(order.id, (o) => o.actions.includes('continue'), { intervalMs: 1000 });
    };
    const first = await held();
    assert.equal(first.status, 'refunding');
    assert.deepEqual([...first.actions].sort(), ['continue', 'refund', 'set_refund_address']);
    assert.equal((await client.continueOrder(first.id)).status, 'exchanging');
    const second = await held();
    const refunded = await client.refundOrder(second.id);
    assert.equal(refunded.status, 'refunding');
    assert.ok(!refunded.actions.includes('continue'), refunded.actions.join());
  });

  describe('typed errors', () => {
    it('400 BadRequestError: an invalid recipient', async () => {
      const error = await s.client().createOrder({ ...BTC_TO_ETH, recipient_address: 'not-an-address' }).catch((e: unknown) => e);
      assert.ok(error instanceof BadRequestError, String(error));
      assert.equal(error.status, 400);
      assert.equal(error.code, 'bad_request');
      assert.match(error.detail, /recipient/i);
    });

    it('401 AuthenticationError: an unknown key; a key with no client-side key at all is refused before sending', async () => {
      const error = await s.client({ apiKey: 'pk_00000000000000000000.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }).getOrder('EX-AAAAAA').catch((e: unknown) => e);
      assert.ok(error instanceof AuthenticationError, String(error));
      assert.equal(error.code, 'unauthorized');
      await assert.rejects(s.client({ apiKey: undefined }).getOrder('EX-AAAAAA'), /needs an apiKey/);
    });

    it('403 PermissionError: a suspended partner', async () => {
      const other = await s.t.createPartner({ rate_limit_per_minute: 100_000 });
      const patched = await s.t.admin('PATCH', `/admin/v1/partners/${other.id}`, { status: 'suspended' });
      assert.equal(patched.statusCode, 200, patched.body);
      const error = await s.client({ apiKey: other.apiKey }).account().catch((e: unknown) => e);
      assert.ok(error instanceof PermissionError, String(error));
      assert.equal(error.code, 'forbidden');
    });

    it('404 NotFoundError: an unknown order', async () => {
      const error = await s.client().getOrder('EX-ZZZZZZ').catch((e: unknown) => e);
      assert.ok(error instanceof NotFoundError, String(error));
      assert.ok(error instanceof PartnerApiError && error instanceof Error && !(error instanceof ConflictError));
      assert.equal(error.name, 'NotFoundError');
      assert.equal(NotFoundError.name, 'NotFoundError');
      assert.equal(error.code, 'not_found');
      assert.equal(typeof error.requestId, 'string');
    });

    it('422 AmountOutOfRangeError: the limits in both units, as exact strings', async () => {
      const client = s.client();
      for (const call of [
        () => client.rates({ coin_from: 'BTC', coin_to: 'ETH', amount: '0.00000001' }),
        () => client.createOrder({ ...BTC_TO_ETH, amount_from: '0.00000001' }),
      ]) {
        const error = await call().catch((e: unknown) => e);
        assert.ok(error instanceof AmountOutOfRangeError, String(error));
        assert.equal(error.code, 'amount_out_of_range');
        for (const limit of [error.min_amount, error.max_amount, error.min_amount_to, error.max_amount_to]) assert.match(String(limit), /^\d+(\.\d+)?$/);
        const quote = await client.rates({ coin_from: 'BTC', coin_to: 'ETH', amount: error.min_amount ?? '' });
        assert.equal(quote.amount_from, error.min_amount, 'the minimum given is one the API takes');
      }
    });

    it('422 PairUnavailableError and QuoteInvalidError', async () => {
      const client = s.client();
      const same = await client.rates({ coin_from: 'BTC', coin_to: 'BTC', network_from: 'BTC', network_to: 'BTC' }).catch((e: unknown) => e);
      assert.ok(same instanceof PairUnavailableError, String(same));
      const quote = await client.createOrder({ ...BTC_TO_ETH, rate_type: 'fixed', quote_id: 'not-a-quote-this-server-issued' }).catch((e: unknown) => e);
      assert.ok(quote instanceof QuoteInvalidError, String(quote));
      assert.equal(quote.code, 'quote_invalid');
    });

    it('422 UnprocessableError: an Idempotency-Key reused with another body', async () => {
      const client = s.client();
      await client.createOrder(BTC_TO_ETH, { idempotencyKey: 'reused-key-1' });
      const error = await client.createOrder({ ...BTC_TO_ETH, amount_from: '0.2' }, { idempotencyKey: 'reused-key-1' }).catch((e: unknown) => e);
      assert.ok(error instanceof UnprocessableError, String(error));
      assert.equal(error.status, 422);
    });

    it('refuses a JS number for an amount before sending: amounts are decimal strings', async () => {
      const request = { ...BTC_TO_ETH, amount_from: 0.1 } as unknown as CreateOrderRequest;
      await assert.rejects(s.client().createOrder(request), /amount_from must be a decimal string/);
      await assert.rejects(s.client().rates({ coin_from: 'BTC', coin_to: 'ETH', amount: '1e-3' }), /amount must be a decimal string/);
      // In a query too (issue 27.9): a JS number is refused before anything is sent.
      const query = { coin_from: 'BTC', coin_to: 'ETH', amount: 0.1 } as unknown as RatesQuery;
      await assert.rejects(s.client().rates(query), /amount must be a decimal string \(such as "0.1"\), not a JS number/);
      const reverse = { coin_from: 'BTC', coin_to: 'ETH', amount_to: 2 } as unknown as RatesQuery;
      await assert.rejects(s.client().rates(reverse), /amount_to must be a decimal string/);
    });
  });

  describe('signing', () => {
    /** The client's fetch, recording each request's headers. */
    const recording = (sent: Array<{ url: string; headers: Headers; init: RequestInit }>): typeof fetch => async (input, init = {}) => {
      sent.push({ url: urlOf(input), headers: new Headers(init.headers), init });
      return fetch(input, init);
    };

    it("v1's body HMAC: the server checks it and accepts the request", async () => {
      const sent: Array<{ url: string; headers: Headers; init: RequestInit }> = [];
      const client = s.client({ signing: 'body', fetch: recording(sent) });
      const order = await client.createOrder(BTC_TO_ETH);
      assert.equal((await client.getOrder(order.id)).id, order.id);
      assert.equal(sent.length, 2);
      for (const { headers } of sent) assert.match(headers.get('x-signature') ?? '', /^[0-9a-f]{64}$/);
      // The same request with the signature altered is refused: the server did check it.
      const [post] = sent;
      const tampered = new Headers(post?.headers);
      tampered.set('x-signature', '0'.repeat(64));
      const res = await fetch(post?.url ?? '', { ...post?.init, headers: tampered });
      assert.equal(res.status, 401);
      assert.equal(((await res.json()) as { code: string }).code, 'invalid_signature');
    });

    it('replay-proof (docs/contract.md §7.7): accepted once, with a query string too; a replay is refused', async () => {
      const sent: Array<{ url: string; headers: Headers; init: RequestInit }> = [];
      const client = s.client({ signing: 'replay-proof', fetch: recording(sent) });
      s.clock.advance(1); // the newest order: the list is by created_at first
      const order = await client.createOrder(BTC_TO_ETH);
      const page = await client.listOrders({ limit: 1, status: 'waiting_deposit' });
      assert.equal(page.orders[0]?.id, order.id);
      for (const { headers } of sent) {
        assert.match(headers.get('x-timestamp') ?? '', /^\d+$/);
        assert.match(headers.get('x-signature') ?? '', /^[0-9a-f]{64}$/);
      }
      const list = sent[1];
      const replay = await fetch(list?.url ?? '', list?.init);
      assert.equal(replay.status, 401);
      assert.match(((await replay.json()) as { detail: string }).detail, /replayed request/);
    });
  });

  describe('retries', () => {
    /** A partner of its own, so its orders and rate-limit budget are counted apart. */
    const freshPartner = async (fields: Record<string, unknown> = {}) => s.t.createPartner({ rate_limit_per_minute: 100_000, ...fields });
    const countOrders = async (apiKey: string) => {
      await s.advance(61_000); // a fresh rate-limit window for the count itself
      let count = 0;
      for await (const _order of s.client({ apiKey }).orders()) count += 1;
      return count;
    };

    it('a 429 then a 201 makes one order: Retry-After honoured, the same Idempotency-Key, each try signed anew', async () => {
      const { apiKey } = await freshPartner({ rate_limit_per_minute: 2 });
      const posts: Headers[] = [];
      const client = s.client({
        apiKey,
        signing: 'replay-proof',
        fetch: async (input, init = {}) => {
          if (init.method === 'POST') posts.push(new Headers(init.headers));
          return fetch(input, init);
        },
      });
      await client.account();
      await client.account(); // the key's budget for this minute is spent
      const waitsBefore = s.waits.length;
      const order = await client.createOrder(BTC_TO_ETH);
      assert.equal(order.status, 'waiting_deposit');
      assert.equal(posts.length, 2, 'refused once, then accepted');
      assert.equal(posts[0]?.get('idempotency-key'), posts[1]?.get('idempotency-key'));
      assert.notEqual(posts[0]?.get('x-signature'), posts[1]?.get('x-signature'));
      const waited = s.waits.slice(waitsBefore);
      assert.equal(waited.length, 1);
      assert.ok((waited[0] ?? 0) >= 1000 && (waited[0] ?? 0) % 1000 === 0, `the Retry-After seconds: ${waited[0]}`);
      assert.equal(await countOrders(apiKey), 1);
    });

    it('a 429 is retried on a call that is not idempotent too: the limiter refused it before it ran, so the order is cancelled once', async () => {
      const { apiKey } = await freshPartner({ rate_limit_per_minute: 2 });
      const creates: Headers[] = [];
      const cancels: number[] = [];
      const client = s.client({
        apiKey,
        fetch: async (input, init = {}) => {
          const res = await fetch(input, init);
          const { pathname } = new URL(urlOf(input));
          if (pathname.endsWith('/partner/orders')) creates.push(new Headers(init.headers));
          if (pathname.endsWith('/cancel')) cancels.push(res.status);
          return res;
        },
      });
      const first = await client.createOrder(BTC_TO_ETH);
      const second = await client.createOrder(BTC_TO_ETH); // the key's budget for this minute is spent
      assert.notEqual(first.id, second.id);
      assert.notEqual(creates[0]?.get('idempotency-key'), creates[1]?.get('idempotency-key'), 'a new Idempotency-Key per create');
      const waitsBefore = s.waits.length;
      const cancelled = await client.cancelOrder(first.id);
      // Had the refused try cancelled the order, the second would be a 409 (ConflictError).
      assert.deepEqual(cancels, [429, 200], 'refused by the limiter, then done');
      assert.equal(cancelled.status, 'expired');
      assert.equal(cancelled.status_reason, 'cancelled');
      const waited = s.waits.slice(waitsBefore);
      assert.equal(waited.length, 1);
      assert.ok((waited[0] ?? 0) >= 1000 && (waited[0] ?? 0) % 1000 === 0, `the Retry-After seconds: ${waited[0]}`);
    });

    it('an answer lost on the way back: the retry gets the same order, and only one exists', async () => {
      const { apiKey } = await freshPartner();
      let lost = 0;
      const client = s.client({
        apiKey,
        random: () => 0.5,
        fetch: async (input, init = {}) => {
          const res = await fetch(input, init);
          if (init.method === 'POST' && lost++ === 0) {
            await res.body?.cancel();
            throw new TypeError('fetch failed: connection reset');
          }
          return res;
        },
      });
      const waitsBefore = s.waits.length;
      const order = await client.createOrder(BTC_TO_ETH);
      assert.equal(lost, 2);
      assert.deepEqual(s.waits.slice(waitsBefore), [250], 'half of the first back-off (500 ms), from the jitter given');
      assert.equal(await countOrders(apiKey), 1);
      assert.equal((await client.getOrder(order.id)).id, order.id);
    });

    it('5xx: idempotent calls are retried with growing back-off, then a ServerError; a deposit is never retried', async () => {
      const calls: string[] = [];
      const failing: typeof fetch = async (input, init = {}) => {
        calls.push(`${init.method} ${new URL(urlOf(input)).pathname}`);
        return new Response(JSON.stringify({ detail: 'service unavailable', code: 'unavailable' }), { status: 503, headers: { 'content-type': 'application/json' } });
      };
      const client = s.client({ fetch: failing, random: () => 0.999, retry: { retries: 3, baseDelayMs: 100, maxDelayMs: 1000 } });
      const waitsBefore = s.waits.length;
      const error = await client.getOrder('EX-AAAAAA').catch((e: unknown) => e);
      assert.ok(error instanceof ServerError, String(error));
      assert.equal(error.code, 'unavailable');
      assert.equal(calls.length, 4);
      assert.deepEqual(s.waits.slice(waitsBefore), [99, 199, 399]);
      calls.length = 0;
      await assert.rejects(client.sandboxDeposit('EX-AAAAAA'), ServerError);
      assert.equal(calls.length, 1, 'not idempotent: one try');
    });

    it('network errors: a GET is retried, a deposit is not; a Retry-After beyond maxDelayMs is left to the caller', async () => {
      let tries = 0;
      const down: typeof fetch = async () => {
        tries += 1;
        throw new TypeError('fetch failed: ECONNREFUSED');
      };
      const client = s.client({ fetch: down, retry: { retries: 2 } });
      await assert.rejects(client.currencies(), (error: unknown) => error instanceof NetworkError && /ECONNREFUSED/.test(String((error.cause as Error).message)));
      assert.equal(tries, 3);
      tries = 0;
      await assert.rejects(client.sandboxDeposit('EX-AAAAAA'), NetworkError);
      assert.equal(tries, 1);

      const { apiKey } = await freshPartner({ rate_limit_per_minute: 1 });
      const impatient = s.client({ apiKey, retry: { maxDelayMs: 500 } });
      await impatient.account();
      const waitsBefore = s.waits.length;
      const error = await impatient.account().catch((e: unknown) => e);
      assert.ok(error instanceof RateLimitError, String(error));
      assert.equal(error.code, 'rate_limited');
      assert.ok((error.retryAfterMs ?? 0) >= 1000, String(error.retryAfterMs));
      assert.equal(s.waits.length, waitsBefore, 'no wait');
    });
  });

  it('webhooks (docs/contract.md §8): endpoints managed through the SDK, deliveries verified by verifyWebhook', async () => {
    const receiver = await new WebhookReceiver().start();
    try {
      const { apiKey } = await s.t.createPartner({ rate_limit_per_minute: 100_000 });
      const client = s.client({ apiKey });
      const deliver = () => s.t.app.runtime.webhookWorker.drain();
      const endpoint = await client.createWebhook({ url: receiver.url('/hooks'), description: 'sdk test' });
      assert.match(endpoint.secret, /^whsec_/);
      assert.deepEqual((await client.listWebhooks()).webhooks.map((w) => w.id), [endpoint.id]);
      assert.equal((await client.updateWebhook(endpoint.id, { events: ['order.created'] })).id, endpoint.id);

      const ping = await client.testWebhook(endpoint.id);
      assert.equal(await deliver(), 1);
      const [pinged] = receiver.on('/hooks');
      assert.ok(pinged !== undefined);
      const pingEvent = await verifyWebhook(endpoint.secret, pinged.headers, pinged.body, { now: s.clock.now().getTime() });
      assert.equal(pingEvent.type, 'ping');

      const order = await client.createOrder({ ...BTC_TO_ETH, amount_from: '0.12345678' });
      assert.equal(await deliver(), 1);
      const created = receiver.on('/hooks')[1];
      assert.ok(created !== undefined);
      const event = await verifyWebhook([endpoint.secret], created.headers, created.body, { now: s.clock.now().getTime() });
      assert.equal(event.type, 'order.created');
      assert.deepEqual(event.data.order, await client.getOrder(order.id), 'the Order as GET answers it, amounts exact');

      const log = await client.listWebhookDeliveries(endpoint.id);
      assert.deepEqual(log.deliveries.map((d) => d.id).sort(), [ping.id, log.deliveries.find((d) => d.id !== ping.id)?.id].sort());
      assert.equal((await client.retryWebhookDelivery(ping.id)).id, ping.id);
      const rotated = await client.rotateWebhookSecret(endpoint.id);
      assert.notEqual(rotated.secret, endpoint.secret);
      await client.deleteWebhook(endpoint.id);
      assert.deepEqual((await client.listWebhooks()).webhooks, []);
      await assert.rejects(client.deleteWebhook(endpoint.id), NotFoundError);
    } finally {
      await receiver.close();
    }
  });

  it('the committed generated types are what the served OpenAPI document gives', async () => {
    const res = await s.t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    assert.equal(res.statusCode, 200);
    const sources = await sdkSources(res.json<Record<string, unknown>>());
    for (const [name, text] of Object.entries(sources)) {
      const committed = readFileSync(path.join(GENERATED_DIR, name), 'utf8');
      assert.ok(committed === text, `packages/sdk/src/generated/${name} differs from what the server's OpenAPI document gives: run \`npm run sdk:generate\` and commit the result`);
    }
  });
});
