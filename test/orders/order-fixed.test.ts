import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Decimal } from '../../src/domain/money.js';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';
import { assertError, getRates, oracle, QUOTE_ID, rawNumber } from '../rates/rates-helpers.js';

/**
 * Fixed-rate orders (docs/contract.md §3): a quote_id from GET /partner/rates?rate_type=fixed locks the
 * quoted rate and amount; an expired or mismatching quote is 422; without quote_id a fixed
 * order is priced at creation.
 */

const ETH_ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const BTC_ADDRESS = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const QUOTE_TTL_MS = 300_000;
const MARKUP_BPS = 40;

const BTC_ETH = {
  coin_from: 'BTC',
  network_from: 'BTC',
  coin_to: 'ETH',
  network_to: 'ETH',
  amount_from: 0.1,
  rate_type: 'fixed',
  recipient_address: ETH_ADDRESS,
};

type Partner = { id: string; apiKey: string; keyId: string };

describe('POST /partner/orders: fixed rate', () => {
  const clock = new ManualClock(new Date('2026-05-10T08:00:00.000Z'));
  let t: TestApp;
  let acme: Partner;
  let other: Partner;
  before(async () => {
    t = await buildTestApp({ clock, env: { WORKER: 'off', PRICE_POLL_SECONDS: '3600' } });
    acme = await t.createPartner({ markup_bps: MARKUP_BPS, rate_limit_per_minute: 100_000 });
    other = await t.createPartner({ markup_bps: MARKUP_BPS, rate_limit_per_minute: 100_000 });
  });
  after(() => t.close());

  const postOrder = (partner: Partner, body: object): Promise<LightMyRequestResponse> =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { authorization: `Bearer ${partner.apiKey}`, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });

  /** A fixed quote from /partner/rates, asked with the partner's key, or without one (undefined). */
  const fixedQuote = async (query: string, partner: Partner | undefined): Promise<{ id: string; body: string }> => {
    const res = await getRates(t, `${query}&rate_type=fixed`, partner === undefined ? {} : { 'x-api-key': partner.apiKey });
    assert.equal(res.statusCode, 200, res.body);
    const { quote_id } = res.json<{ quote_id: string }>();
    assert.match(quote_id, QUOTE_ID);
    return { id: quote_id, body: res.body };
  };

  const counts = async () => {
    const count = async (table: 'orders' | 'order_events' | 'idempotency_keys') =>
      Number((await t.db.handle.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    return { orders: await count('orders'), events: await count('order_events'), keys: await count('idempotency_keys') };
  };

  /** A rejection that must leave nothing behind. */
  const rejected = async (partner: Partner, body: object, detail: RegExp): Promise<void> => {
    const before = await counts();
    const res = await postOrder(partner, body);
    const error = assertError(res, 422, 'quote_invalid');
    assert.match(error.detail, detail);
    assert.deepEqual(await counts(), before);
  };

  /** Re-polls the static prices at the moved clock (they age out after 60 s of clock time). */
  const refreshPrices = async (): Promise<void> => {
    const res = await t.admin('PUT', '/admin/v1/prices/BTC', { price_usd: '67000' });
    assert.equal(res.statusCode, 200, res.body);
  };

  it('a matching quote_id locks the quoted rate and amount_to', async () => {
    const quote = await fixedQuote('coin_from=BTC&coin_to=ETH&amount=0.1', acme);
    const stored = t.runtime.quotes.openFixedQuote(quote.id);
    assert.ok(typeof stored === 'object', 'the quote_id opens');
    const res = await postOrder(acme, { ...BTC_ETH, quote_id: quote.id });
    assert.equal(res.statusCode, 201, res.body);
    const order = res.json<{ id: string; rate_type: string; status: string }>();
    assert.equal(order.rate_type, 'fixed');
    assert.equal(order.status, 'waiting_deposit');
    assert.equal(rawNumber(res.body, 'rate_quoted'), rawNumber(quote.body, 'rate'));
    assert.equal(rawNumber(res.body, 'amount_to_expected'), stored.amountTo.toFixed());
    assert.equal(rawNumber(res.body, 'amount_from_expected'), '0.1');
    const expected = oracle({ from: 'BTC', to: 'ETH', amount: '0.1', rateType: 'fixed', markupBps: MARKUP_BPS });
    assert.equal(rawNumber(res.body, 'amount_to_expected'), expected.amountTo.toFixed());

    const row = await t.db.handle.db.selectFrom('orders').select(['quote_id', 'exact_rate']).where('id', '=', order.id).executeTakeFirstOrThrow();
    // The spent record: the quote's own id, which a second order with the same quote_id meets.
    assert.equal(row.quote_id, stored.id);
    assert.ok(new Decimal(row.exact_rate).eq(stored.exactRate));
  });

  it('the locked rate survives a price move between quote and order', async () => {
    const quote = await fixedQuote('coin_from=BTC&coin_to=ETH&amount=0.2', acme);
    const moved = await t.admin('PUT', '/admin/v1/prices/ETH', { price_usd: '3000' });
    assert.equal(moved.statusCode, 200, moved.body);
    try {
      const res = await postOrder(acme, { ...BTC_ETH, amount_from: 0.2, quote_id: quote.id });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(rawNumber(res.body, 'rate_quoted'), rawNumber(quote.body, 'rate'));
      const atOldPrice = oracle({ from: 'BTC', to: 'ETH', amount: '0.2', rateType: 'fixed', markupBps: MARKUP_BPS });
      assert.equal(rawNumber(res.body, 'amount_to_expected'), atOldPrice.amountTo.toFixed());
    } finally {
      const back = await t.admin('PUT', '/admin/v1/prices/ETH', { price_usd: '3500' });
      assert.equal(back.statusCode, 200, back.body);
    }
  });

  it('a quote used twice: 422 the second time', async () => {
    const quote = await fixedQuote('coin_from=BTC&coin_to=ETH&amount=0.1', acme);
    assert.equal((await postOrder(acme, { ...BTC_ETH, quote_id: quote.id })).statusCode, 201);
    await rejected(acme, { ...BTC_ETH, quote_id: quote.id }, /already used/);
  });

  it('one quote in 8 concurrent orders: exactly one 201, the others 422 (never a 500)', async () => {
    const quote = await fixedQuote('coin_from=BTC&coin_to=ETH&amount=0.1', acme);
    const before = await counts();
    const responses = await Promise.all(Array.from({ length: 8 }, () => postOrder(acme, { ...BTC_ETH, quote_id: quote.id })));
    const statuses = responses.map((res) => res.statusCode).sort();
    assert.deepEqual(statuses, [201, 422, 422, 422, 422, 422, 422, 422], responses.map((res) => res.body).join('\n'));
    for (const res of responses.filter((r) => r.statusCode === 422)) assertError(res, 422, 'quote_invalid');
    const after = await counts();
    assert.equal(after.orders, before.orders + 1);
    assert.equal(after.events, before.events + 1);
  });

  it('a quote for another pair: 422', async () => {
    const quote = await fixedQuote('coin_from=BTC&coin_to=LTC&amount=0.1', acme);
    await rejected(acme, { ...BTC_ETH, quote_id: quote.id }, /another pair/);
    // The reverse pair is another pair too.
    const reverse = await fixedQuote('coin_from=ETH&coin_to=BTC&amount=0.1', acme);
    await rejected(
      acme,
      { ...BTC_ETH, coin_from: 'ETH', network_from: 'ETH', coin_to: 'BTC', network_to: 'BTC', recipient_address: BTC_ADDRESS, amount_from: 0.1, quote_id: quote.id },
      /another pair/,
    );
    assert.equal((await postOrder(acme, { ...BTC_ETH, coin_from: 'ETH', network_from: 'ETH', coin_to: 'BTC', network_to: 'BTC', recipient_address: BTC_ADDRESS, quote_id: reverse.id })).statusCode, 201);
  });

  it('a quote for another amount: 422 naming the quoted amount', async () => {
    const quote = await fixedQuote('coin_from=BTC&coin_to=ETH&amount=0.1', acme);
    await rejected(acme, { ...BTC_ETH, amount_from: 0.10000001, quote_id: quote.id }, /0\.1\b/);
    await rejected(acme, { ...BTC_ETH, amount_from: 0.2, quote_id: quote.id }, /amount_from 0\.1$/);
  });

  it("another partner's quote: 422; the owner can still use it", async () => {
    const quote = await fixedQuote('coin_from=BTC&coin_to=ETH&amount=0.1', other);
    await rejected(acme, { ...BTC_ETH, quote_id: quote.id }, /another caller/);
    // The refusal did not consume it.
    assert.equal((await postOrder(other, { ...BTC_ETH, quote_id: quote.id })).statusCode, 201);
  });

  it('a quote asked without a key locks its rate (the default markup) for any partner, once', async () => {
    const quote = await fixedQuote('coin_from=BTC&coin_to=ETH&amount=0.1', undefined);
    const res = await postOrder(acme, { ...BTC_ETH, quote_id: quote.id });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(rawNumber(res.body, 'rate_quoted'), rawNumber(quote.body, 'rate'));
    const atDefault = oracle({ from: 'BTC', to: 'ETH', amount: '0.1', rateType: 'fixed' });
    assert.equal(rawNumber(res.body, 'amount_to_expected'), atDefault.amountTo.toFixed());
    await rejected(other, { ...BTC_ETH, quote_id: quote.id }, /already used/);
  });

  it('an altered quote_id: 422, whichever part was changed', async () => {
    const quote = await fixedQuote('coin_from=BTC&coin_to=ETH&amount=0.1', acme);
    const [prefix, payload = '', mac = ''] = quote.id.split('.');
    // The same quote for a larger amount_to, under the original MAC.
    const text = Buffer.from(payload, 'base64url').toString('utf8');
    const fields = text.split('|');
    fields[5] = new Decimal(fields[5] ?? '0').times(2).toFixed();
    const richer = Buffer.from(fields.join('|')).toString('base64url');
    await rejected(acme, { ...BTC_ETH, quote_id: `${prefix}.${richer}.${mac}` }, /altered/);
    // Made another partner's... or nobody's (an anonymous quote) by editing the caller field.
    fields[5] = text.split('|')[5] ?? '';
    fields[1] = '';
    await rejected(acme, { ...BTC_ETH, quote_id: `${prefix}.${Buffer.from(fields.join('|')).toString('base64url')}.${mac}` }, /altered/);
    const otherMac = mac.startsWith('A') ? `B${mac.slice(1)}` : `A${mac.slice(1)}`;
    await rejected(acme, { ...BTC_ETH, quote_id: `${prefix}.${payload}.${otherMac}` }, /altered/);
    // Untouched, it still works.
    assert.equal((await postOrder(acme, { ...BTC_ETH, quote_id: quote.id })).statusCode, 201);
  });

  it('a quote_id with rate_type float: 422', async () => {
    const quote = await fixedQuote('coin_from=BTC&coin_to=ETH&amount=0.1', acme);
    await rejected(acme, { ...BTC_ETH, rate_type: 'float', quote_id: quote.id }, /rate_type fixed/);
  });

  it('a quote_id this service never issued: 422 (a stored quote of the old kind, made-up text); an empty one: 400', async () => {
    await rejected(acme, { ...BTC_ETH, quote_id: '00000000-0000-4000-8000-000000000000' }, /not a quote/);
    await rejected(acme, { ...BTC_ETH, quote_id: 'not-a-quote' }, /not a quote/);
    assertError(await postOrder(acme, { ...BTC_ETH, quote_id: '' }), 400, 'bad_request');
    assertError(await postOrder(acme, { ...BTC_ETH, quote_id: 'x'.repeat(1025) }), 400, 'bad_request');
  });

  it('without quote_id a fixed order is priced at creation, below the float rate', async () => {
    const fixedRes = await postOrder(acme, BTC_ETH);
    assert.equal(fixedRes.statusCode, 201, fixedRes.body);
    const floatRes = await postOrder(acme, { ...BTC_ETH, rate_type: 'float' });
    assert.equal(floatRes.statusCode, 201, floatRes.body);
    const fixedRate = new Decimal(rawNumber(fixedRes.body, 'rate_quoted'));
    const floatRate = new Decimal(rawNumber(floatRes.body, 'rate_quoted'));
    assert.ok(fixedRate.lt(floatRate), `fixed ${fixedRate.toFixed()} < float ${floatRate.toFixed()}`);
    assert.ok(new Decimal(rawNumber(fixedRes.body, 'amount_to_expected')).lt(rawNumber(floatRes.body, 'amount_to_expected')));
    const expected = oracle({ from: 'BTC', to: 'ETH', amount: '0.1', rateType: 'fixed', markupBps: MARKUP_BPS });
    assert.equal(fixedRate.toFixed(), expected.rate.toFixed());
    assert.equal(rawNumber(fixedRes.body, 'amount_to_expected'), expected.amountTo.toFixed());
    const row = await t.db.handle.db
      .selectFrom('orders')
      .select('quote_id')
      .where('id', '=', fixedRes.json<{ id: string }>().id)
      .executeTakeFirstOrThrow();
    assert.equal(row.quote_id, null);
  });

  it('a quote is usable until 300 s and expired from then on: 422', async () => {
    const late = await fixedQuote('coin_from=BTC&coin_to=ETH&amount=0.1', acme);
    const edge = await fixedQuote('coin_from=BTC&coin_to=ETH&amount=0.1', acme);
    const expired = await fixedQuote('coin_from=BTC&coin_to=ETH&amount=0.1', acme);
    clock.advance(QUOTE_TTL_MS - 1);
    await refreshPrices();
    const res = await postOrder(acme, { ...BTC_ETH, quote_id: late.id });
    assert.equal(res.statusCode, 201, res.body);

    clock.advance(1);
    await refreshPrices();
    await rejected(acme, { ...BTC_ETH, quote_id: edge.id }, /expired/);
    clock.advance(60_000);
    await refreshPrices();
    await rejected(acme, { ...BTC_ETH, quote_id: expired.id }, /expired/);
  });
});
