import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { Decimal } from '../../src/domain/money.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';
import { assertError, getRates, oracle, QUOTE_ID, rawNumber } from './rates-helpers.js';

/**
 * Reverse quotes (docs/contract.md §7.1): amount_to instead of amount on GET /partner/rates and
 * POST /partner/orders. The amount_from quoted is the smallest one at coin_from decimals whose
 * amount_to reaches the one asked: the forward quote at it reaches it, one unit less does not.
 */

const AMOUNT_ERROR_KEYS = ['min_amount', 'max_amount', 'min_amount_to', 'max_amount_to'];
const MARKUP_BPS = 35;

/** Pairs of the seed catalog with their coin_from decimals and an amount_to inside the limits. */
const PAIRS: Array<{ query: string; oracleFrom: string; oracleTo: string; fromDecimals: number; amountTo: string }> = [
  { query: 'coin_from=BTC&coin_to=ETH', oracleFrom: 'BTC', oracleTo: 'ETH', fromDecimals: 8, amountTo: '1.234567890123456789' },
  { query: 'coin_from=ETH&coin_to=BTC', oracleFrom: 'ETH', oracleTo: 'BTC', fromDecimals: 18, amountTo: '0.05' },
  { query: 'coin_from=BTC&coin_to=USDT&network_to=TRC20', oracleFrom: 'BTC', oracleTo: 'USDT/TRC20', fromDecimals: 8, amountTo: '1000.000001' },
  { query: 'coin_from=USDT&network_from=ERC20&coin_to=SOL', oracleFrom: 'USDT/ERC20', oracleTo: 'SOL', fromDecimals: 6, amountTo: '3.3' },
  { query: 'coin_from=DOGE&coin_to=LTC', oracleFrom: 'DOGE', oracleTo: 'LTC', fromDecimals: 8, amountTo: '1.5' },
];

describe('reverse quotes: GET /partner/rates?amount_to=', () => {
  let t: TestApp;
  let apiKey: string;
  before(async () => {
    t = await buildTestApp({ clock: new ManualClock(), env: { WORKER: 'off', PRICE_POLL_SECONDS: '3600' } });
    ({ apiKey } = await t.createPartner({ markup_bps: MARKUP_BPS, rate_limit_per_minute: 100_000 }));
  });
  after(() => t.close());

  for (const rateType of ['float', 'fixed'] as const) {
    for (const keyed of [false, true]) {
      it(`${rateType}, ${keyed ? 'with' : 'without'} a key: the smallest amount_from whose amount_to reaches the one asked`, async () => {
        const headers: Record<string, string> = keyed ? { 'x-api-key': apiKey } : {};
        for (const pair of PAIRS) {
          const res = await getRates(t, `${pair.query}&amount_to=${pair.amountTo}&rate_type=${rateType}`, headers);
          assert.equal(res.statusCode, 200, res.body);
          const amountFrom = rawNumber(res.body, 'amount_from');
          const amountTo = rawNumber(res.body, 'amount_to');
          assert.ok(new Decimal(amountFrom).decimalPlaces() <= pair.fromDecimals, `${pair.query}: ${amountFrom}`);
          assert.ok(new Decimal(amountTo).gte(pair.amountTo), `${pair.query}: ${amountTo} < ${pair.amountTo}`);

          // The same answer as a forward quote of that amount, and the engine's (oracle) value.
          const forward = await getRates(t, `${pair.query}&amount=${amountFrom}&rate_type=${rateType}`, headers);
          assert.equal(forward.statusCode, 200, forward.body);
          for (const field of ['rate', 'amount_from', 'amount_to', 'min_amount', 'max_amount']) {
            assert.equal(rawNumber(res.body, field), rawNumber(forward.body, field), `${pair.query} ${field}`);
          }
          const markupBps = keyed ? MARKUP_BPS : undefined;
          const expected = oracle({ from: pair.oracleFrom, to: pair.oracleTo, amount: amountFrom, rateType, ...(markupBps === undefined ? {} : { markupBps }) });
          assert.equal(amountTo, expected.amountTo.toFixed(), `${pair.query} oracle amount_to`);

          // One unit of coin_from less does not reach the amount asked (or is below the minimum).
          const less = new Decimal(amountFrom).minus(new Decimal(`1e-${pair.fromDecimals}`));
          const lessRes = await getRates(t, `${pair.query}&amount=${less.toFixed()}&rate_type=${rateType}`, headers);
          if (lessRes.statusCode === 200) {
            assert.ok(new Decimal(rawNumber(lessRes.body, 'amount_to')).lt(pair.amountTo), `${pair.query}: one unit less also reaches it`);
          } else {
            assertError(lessRes, 422, 'amount_out_of_range', AMOUNT_ERROR_KEYS);
          }

          const body = res.json<{ quote_id?: string; expires_in: number | null }>();
          if (rateType === 'fixed') {
            assert.match(body.quote_id ?? '', QUOTE_ID);
            assert.equal(body.expires_in, 300);
          } else {
            assert.equal(body.quote_id, undefined);
            assert.equal(body.expires_in, null);
          }
        }
      });
    }
  }

  it('every quote carries amount_from and amount_to: the amount, or min_amount when none is sent', async () => {
    const withAmount = await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=0.25');
    assert.equal(rawNumber(withAmount.body, 'amount_from'), '0.25');
    assert.equal(rawNumber(withAmount.body, 'amount_to'), oracle({ from: 'BTC', to: 'ETH', amount: '0.25' }).amountTo.toFixed());
    const bare = await getRates(t, 'coin_from=BTC&coin_to=ETH');
    assert.equal(rawNumber(bare.body, 'amount_from'), rawNumber(bare.body, 'min_amount'));
    assert.equal(rawNumber(bare.body, 'amount_to'), oracle({ from: 'BTC', to: 'ETH' }).amountTo.toFixed());
  });

  it('the limits in coin_to: min_amount_to is the payout at min_amount, max_amount_to at max_amount; outside them 422', async () => {
    const min = await getRates(t, 'coin_from=BTC&coin_to=ETH');
    const minAmount = rawNumber(min.body, 'min_amount');
    const maxAmount = rawNumber(min.body, 'max_amount');
    const minTo = new Decimal(rawNumber(min.body, 'amount_to'));
    const maxTo = oracle({ from: 'BTC', to: 'ETH', amount: maxAmount }).amountTo;

    const unit = new Decimal('1e-18');
    for (const [asked, detail] of [[minTo.minus(unit), /amount_to is below the minimum/], [maxTo.plus(unit), /amount_to is above the maximum/]] as const) {
      const res = await getRates(t, `coin_from=BTC&coin_to=ETH&amount_to=${asked.toFixed()}`);
      const error = assertError(res, 422, 'amount_out_of_range', AMOUNT_ERROR_KEYS);
      assert.match(error.detail, detail);
      assert.equal(rawNumber(res.body, 'min_amount'), minAmount);
      assert.equal(rawNumber(res.body, 'max_amount'), maxAmount);
      assert.equal(rawNumber(res.body, 'min_amount_to'), minTo.toFixed());
      assert.equal(rawNumber(res.body, 'max_amount_to'), maxTo.toFixed());
    }
    // A forward amount error carries the same four limits.
    const forward = await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=100');
    assertError(forward, 422, 'amount_out_of_range', AMOUNT_ERROR_KEYS);
    assert.equal(rawNumber(forward.body, 'min_amount_to'), minTo.toFixed());

    // The limits themselves are accepted.
    const atMin = await getRates(t, `coin_from=BTC&coin_to=ETH&amount_to=${minTo.toFixed()}`);
    assert.equal(rawNumber(atMin.body, 'amount_from'), minAmount);
    const atMax = await getRates(t, `coin_from=BTC&coin_to=ETH&amount_to=${maxTo.toFixed()}`);
    assert.equal(rawNumber(atMax.body, 'amount_from'), maxAmount);
  });

  it('400: amount and amount_to together, amount_to finer than coin_to, not a plain decimal', async () => {
    assertError(await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=0.1&amount_to=1'), 400, 'bad_request');
    const fine = assertError(await getRates(t, 'coin_from=ETH&coin_to=BTC&amount_to=0.123456789'), 400, 'bad_request');
    assert.match(fine.detail, /amount_to has more than 8 decimals for BTC/);
    assertError(await getRates(t, 'coin_from=ETH&coin_to=BTC&amount_to=1e-3'), 400, 'bad_request');
    assertError(await getRates(t, 'coin_from=ETH&coin_to=BTC&amount_to=-1'), 400, 'bad_request');
  });

  it('pair_unavailable for the same currency both sides, also with amount_to', async () => {
    assertError(await getRates(t, 'coin_from=BTC&coin_to=BTC&amount_to=1'), 422, 'pair_unavailable');
  });
});

describe('reverse orders: POST /partner/orders with amount_to', () => {
  let t: TestApp;
  let apiKey: string;
  const BTC_ETH = {
    coin_from: 'BTC',
    network_from: 'BTC',
    coin_to: 'ETH',
    network_to: 'ETH',
    rate_type: 'float',
    recipient_address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
  };
  before(async () => {
    t = await buildTestApp({ clock: new ManualClock(), env: { WORKER: 'off', PRICE_POLL_SECONDS: '3600' } });
    ({ apiKey } = await t.createPartner({ markup_bps: MARKUP_BPS, rate_limit_per_minute: 100_000 }));
  });
  after(() => t.close());

  /** Posts a raw JSON text, so amounts keep every digit. */
  const post = (payload: string): Promise<LightMyRequestResponse> =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      payload,
    });
  const withAmounts = (body: object, amounts: string): string => JSON.stringify(body).replace(/}$/, `,${amounts}}`);

  for (const rateType of ['float', 'fixed'] as const) {
    it(`${rateType}: priced like the reverse quote; amount_to_expected reaches the amount asked`, async () => {
      const asked = '2.000000000000000001';
      const quote = await getRates(t, `coin_from=BTC&coin_to=ETH&amount_to=${asked}&rate_type=${rateType}`, { 'x-api-key': apiKey });
      assert.equal(quote.statusCode, 200, quote.body);
      const res = await post(withAmounts({ ...BTC_ETH, rate_type: rateType }, `"amount_to":${asked}`));
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(rawNumber(res.body, 'amount_from_expected'), rawNumber(quote.body, 'amount_from'));
      assert.equal(rawNumber(res.body, 'amount_to_expected'), rawNumber(quote.body, 'amount_to'));
      assert.ok(new Decimal(rawNumber(res.body, 'amount_to_expected')).gte(asked));
    });
  }

  it('a fixed quote asked by amount_to is locked by an order sending that amount_to (or the quote\'s amount_to)', async () => {
    const asked = '3.5';
    const quote = await getRates(t, `coin_from=BTC&coin_to=ETH&amount_to=${asked}&rate_type=fixed`, { 'x-api-key': apiKey });
    assert.equal(quote.statusCode, 200, quote.body);
    const { quote_id } = quote.json<{ quote_id: string }>();
    const body = { ...BTC_ETH, rate_type: 'fixed', quote_id };

    const wrong = assertError(await post(withAmounts(body, '"amount_to":3.6')), 422, 'quote_invalid');
    assert.match(wrong.detail, /the quote is for amount_to 3\.5/);

    const res = await post(withAmounts(body, `"amount_to":${asked}`));
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(rawNumber(res.body, 'amount_from_expected'), rawNumber(quote.body, 'amount_from'));
    assert.equal(rawNumber(res.body, 'amount_to_expected'), rawNumber(quote.body, 'amount_to'));
    assert.equal(rawNumber(res.body, 'rate_quoted'), rawNumber(quote.body, 'rate'));
    // Used once: the second order with it is quote_invalid.
    assertError(await post(withAmounts(body, `"amount_to":${rawNumber(quote.body, 'amount_to')}`)), 422, 'quote_invalid');

    // The quote's own amount_to names the same quote.
    const again = await getRates(t, `coin_from=BTC&coin_to=ETH&amount_to=${asked}&rate_type=fixed`, { 'x-api-key': apiKey });
    const second = await post(withAmounts({ ...body, quote_id: again.json<{ quote_id: string }>().quote_id }, `"amount_to":${rawNumber(again.body, 'amount_to')}`));
    assert.equal(second.statusCode, 201, second.body);
  });

  it('400 with both amounts or neither; 422 with the limits in both units when out of range', async () => {
    const both = assertError(await post(withAmounts(BTC_ETH, '"amount_from":0.1,"amount_to":1')), 400, 'bad_request');
    assert.match(both.detail, /exactly one of "amount_from" and "amount_to"/);
    assertError(await post(JSON.stringify(BTC_ETH)), 400, 'bad_request');
    assertError(await post(withAmounts(BTC_ETH, '"amount_to":0')), 400, 'bad_request');
    // v1.2 takes a decimal string ("1"), but not one with an exponent.
    assertError(await post(withAmounts(BTC_ETH, '"amount_to":"1e0"')), 400, 'bad_request');
    const tooMuch = await post(withAmounts(BTC_ETH, '"amount_to":1000000'));
    assertError(tooMuch, 422, 'amount_out_of_range', AMOUNT_ERROR_KEYS);
    assert.match(tooMuch.json<{ detail: string }>().detail, /amount_to is above the maximum/);
    const fine = assertError(await post(withAmounts(BTC_ETH, '"amount_to":1.0000000000000000001')), 400, 'bad_request');
    assert.match(fine.detail, /amount_to has more than 18 decimals for ETH/);
  });
});
