import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { assertErrorItems } from '../helpers/error-items.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';
import { assertError, getRates, rawNumber } from '../rates/rates-helpers.js';

/**
 * Amounts as decimal strings (docs/contract.md §10.5, issue 27.2): every amount of a body accepts a JSON
 * number (v1) or a decimal string (`"0.1"`), read exactly the same way; query amounts are text
 * already. An exponent in a string (`"1e-3"`, or `1e-3` in a query) and more decimals than the
 * coin's are 400 with an `amount_invalid` item naming the field. JSON numbers keep v1's reading
 * (any JSON number literal, read exactly: test/orders/order-errors.test.ts).
 */

const ETH_ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';

const BTC_ETH = {
  coin_from: 'BTC',
  network_from: 'BTC',
  coin_to: 'ETH',
  network_to: 'ETH',
  rate_type: 'float',
  recipient_address: ETH_ADDRESS,
};

type Item = { code: string; field: string | null };
const summary = (body: Record<string, unknown>): string[] =>
  (assertErrorItems(body) as Item[]).map((item) => `${item.code}@${item.field ?? 'null'}`);

describe('amounts as decimal strings (docs/contract.md §10.5)', () => {
  // A still clock: two orders priced at the same moment get the same price.
  const clock = new ManualClock();
  let t: TestApp;
  let apiKey: string;
  before(async () => {
    t = await buildTestApp({ clock, env: { WORKER: 'off', PRICE_POLL_SECONDS: '3600' } });
    ({ apiKey } = await t.createPartner({ rate_limit_per_minute: 100_000 }));
  });
  after(() => t.close());

  const post = (body: object | string, key = apiKey): Promise<LightMyRequestResponse> =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });

  /** The priced amounts of an order, as the exact literals the response wrote. */
  const priced = (res: LightMyRequestResponse) => {
    assert.equal(res.statusCode, 201, res.body);
    return { from: rawNumber(res.body, 'amount_from_expected'), to: rawNumber(res.body, 'amount_to_expected'), rate: rawNumber(res.body, 'rate_quoted') };
  };

  it('POST /partner/orders: amount_from "0.1" is priced exactly as 0.1, and so is "0.10000000"', async () => {
    const asNumber = priced(await post({ ...BTC_ETH, amount_from: 0.1 }));
    const asString = priced(await post({ ...BTC_ETH, amount_from: '0.1' }));
    assert.deepEqual(asString, asNumber);
    assert.equal(asString.from, '0.1');
    assert.deepEqual(priced(await post({ ...BTC_ETH, amount_from: '0.10000000' })), asNumber);
    // Digits a binary float would lose are kept in a string as in a number literal.
    const literal = priced(await post(JSON.stringify({ ...BTC_ETH, amount_from: 7 }).replace('"amount_from":7', '"amount_from":0.12345678')));
    assert.deepEqual(priced(await post({ ...BTC_ETH, amount_from: '0.12345678' })), literal);
  });

  it('POST /partner/orders: amount_to "1" is priced exactly as 1', async () => {
    const asNumber = priced(await post({ ...BTC_ETH, amount_to: 1 }));
    const asString = priced(await post({ ...BTC_ETH, amount_to: '1' }));
    assert.deepEqual(asString, asNumber);
  });

  it('POST /partner/orders: an exponent, a sign or no digits in a string is 400 amount_invalid naming the field', async () => {
    for (const value of ['1e-3', '1E-3', '1e3', '-0.1', '+0.1', '0.1 ', 'Infinity', 'NaN', '0x1']) {
      const from = assertError(await post({ ...BTC_ETH, amount_from: value }), 400, 'bad_request');
      assert.deepEqual(summary(from), ['amount_invalid@amount_from'], value);
      const to = assertError(await post({ ...BTC_ETH, amount_to: value }), 400, 'bad_request');
      assert.deepEqual(summary(to), ['amount_invalid@amount_to'], value);
    }
    // Zero is no amount, as 0 is not.
    assert.deepEqual(summary(assertError(await post({ ...BTC_ETH, amount_from: '0.0' }), 400, 'bad_request')), ['amount_invalid@amount_from']);
    assert.deepEqual(summary(assertError(await post({ ...BTC_ETH, amount_from: 0 }), 400, 'bad_request')), ['amount_invalid@amount_from']);
  });

  it('POST /partner/orders: more decimals than the coin\'s, as a string or a number: 400 amount_invalid', async () => {
    // BTC has 8 decimals; ETH (amount_to) 18, USDT on TRC20 6.
    for (const amount of ['0.123456789', 0.123456789]) {
      const error = assertError(await post({ ...BTC_ETH, amount_from: amount }), 400, 'bad_request');
      assert.match(error.detail, /amount_from has more than 8 decimals for BTC/);
      assert.deepEqual(summary(error), ['amount_invalid@amount_from']);
    }
    const toUsdt = { ...BTC_ETH, coin_to: 'USDT', network_to: 'TRC20', recipient_address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' };
    const error = assertError(await post({ ...toUsdt, amount_to: '100.1234567' }), 400, 'bad_request');
    assert.deepEqual(summary(error), ['amount_invalid@amount_to']);
    // More than 18 decimals does not fit any coin: refused by the schema, with the same item.
    const long = assertError(await post({ ...BTC_ETH, amount_from: `0.${'1'.repeat(19)}` }), 400, 'bad_request');
    assert.deepEqual(summary(long), ['amount_invalid@amount_from']);
  });

  it('POST /partner/sandbox/orders/{id}/deposit: amount "0.1" as 0.1; "1e-1" is amount_invalid', async () => {
    const issued = await t.admin('POST', `/admin/v1/partners/${(await t.createPartner({ rate_limit_per_minute: 100_000 })).id}/keys`, { sandbox: true });
    const sandboxKey = issued.json<{ api_key: string }>().api_key;
    const order = await post({ ...BTC_ETH, amount_from: '0.1' }, sandboxKey);
    assert.equal(order.statusCode, 201, order.body);
    const deposit = (amount: unknown) =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/partner/sandbox/orders/${order.json<{ id: string }>().id}/deposit`,
        headers: { authorization: `Bearer ${sandboxKey}` },
        payload: { amount },
      });
    assert.deepEqual(summary(assertError(await deposit('1e-1'), 400, 'bad_request')), ['amount_invalid@amount']);
    assert.deepEqual(summary(assertError(await deposit('0'), 400, 'bad_request')), ['amount_invalid@amount']);
    assert.equal((await deposit('0.1')).statusCode, 200);
  });

  it('GET /partner/rates: amount=1e-3 (an exponent) and too many decimals are 400 amount_invalid naming the field', async () => {
    const exponent = assertError(await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=1e-3'), 400, 'bad_request');
    assert.deepEqual(summary(exponent), ['amount_invalid@amount']);
    const reverse = assertError(await getRates(t, 'coin_from=BTC&coin_to=ETH&amount_to=1E2'), 400, 'bad_request');
    assert.deepEqual(summary(reverse), ['amount_invalid@amount_to']);
    const decimals = assertError(await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=0.123456789'), 400, 'bad_request');
    assert.match(decimals.detail, /amount has more than 8 decimals for BTC/);
    assert.deepEqual(summary(decimals), ['amount_invalid@amount']);
    // The plain decimal is what it always was.
    assert.equal((await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=0.1')).statusCode, 200);
  });
});
