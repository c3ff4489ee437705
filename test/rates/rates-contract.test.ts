import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Decimal } from '../../src/domain/money.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';
import {
  assertError,
  assertPlainDecimal,
  getRates,
  oracle,
  QUOTE_ID,
  rawNumber,
} from './rates-helpers.js';

const FLOAT_KEYS = [
  'coin_from', 'coin_to', 'expires_in', 'max_amount', 'min_amount', 'rate', 'rate_type', 'amount_from', 'amount_to',
  // v1.2 (docs/contract.md §10.6): test/rates/quote-costs.test.ts
  'expires_at', 'network_fee', 'eta_seconds',
].sort();
const FIXED_KEYS = [...FLOAT_KEYS, 'quote_id'].sort();

/**
 * Spec §2.2 / §4.2 and docs/contract.md §3, field by field. The clock never moves in this file and the
 * background polls (prices, catalog) are pushed out to an hour, so prices stay fresh and the
 * hot-path query count below sees only what the requests themselves do.
 */
describe('GET /api/v1/partner/rates: contract', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({
      clock: new ManualClock(),
      env: { PRICE_POLL_SECONDS: '3600', CACHE_REFRESH_MS: '3600000' },
    });
  });
  after(() => t.close());

  it('float BTC -> ETH: 200, exactly the contract fields, priced at the pair minimum with the default markup', async () => {
    const res = await getRates(t, 'coin_from=BTC&coin_to=ETH');
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const body = res.json<Record<string, unknown>>();
    assert.deepEqual(Object.keys(body).sort(), FLOAT_KEYS);
    assert.equal(body.coin_from, 'BTC');
    assert.equal(body.coin_to, 'ETH');
    assert.equal(body.rate_type, 'float');
    assert.equal(body.expires_in, null);
    assert.ok(!('quote_id' in body));
    for (const field of ['rate', 'min_amount', 'max_amount']) assert.equal(typeof body[field], 'number', field);

    // Hand-computed limits: source min 0.0002 BTC; destination min (0.005 + 0.0005 fee) ETH at
    // 3500/67000 with 100 bps off = 0.0055 × 3500 × 10000 / (67000 × 9900) = 0.000290216… -> up to 8 places.
    assert.equal(rawNumber(res.body, 'min_amount'), '0.00029022');
    assert.equal(rawNumber(res.body, 'max_amount'), '10');
    const expected = oracle({ from: 'BTC', to: 'ETH' });
    assert.equal(expected.minAmount.toFixed(), '0.00029022');
    const rate = rawNumber(res.body, 'rate');
    assert.equal(rate, expected.rate.toFixed());
    assertPlainDecimal(rate, 18, 'rate');
    assertPlainDecimal(rawNumber(res.body, 'min_amount'), 8, 'min_amount');
  });

  it('amount given: the rate for that amount (hand-computed for 1 BTC)', async () => {
    const res = await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=1');
    assert.equal(res.statusCode, 200, res.body);
    // 67000 / 3500 × (1 − 0.01) − 0.0005 = 18.950928571428571428571…, rounded down to 18 places.
    assert.equal(rawNumber(res.body, 'rate'), '18.950928571428571428');
    assert.equal(rawNumber(res.body, 'rate'), oracle({ from: 'BTC', to: 'ETH', amount: '1' }).rate.toFixed());
    // The limits do not depend on the amount.
    assert.equal(rawNumber(res.body, 'min_amount'), '0.00029022');
    assert.equal(rawNumber(res.body, 'max_amount'), '10');

    const half = await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=0.5');
    assert.equal(half.statusCode, 200, half.body);
    const halfRate = rawNumber(half.body, 'rate');
    assert.equal(halfRate, oracle({ from: 'BTC', to: 'ETH', amount: '0.5' }).rate.toFixed());
    // The fixed payout fee weighs more on a smaller amount.
    assert.ok(new Decimal(halfRate).lt(new Decimal('18.950928571428571428')));
  });

  it('rate is written with no more digits than coin_to decimals (USDT TRC20: 6)', async () => {
    const res = await getRates(t, 'coin_from=ETH&coin_to=USDT&network_to=TRC20&amount=0.123');
    assert.equal(res.statusCode, 200, res.body);
    const rate = rawNumber(res.body, 'rate');
    assertPlainDecimal(rate, 6, 'rate');
    assert.equal(rate, oracle({ from: 'ETH', to: 'USDT/TRC20', amount: '0.123' }).rate.toFixed());
    const expectedLimits = oracle({ from: 'ETH', to: 'USDT/TRC20' });
    assert.equal(rawNumber(res.body, 'min_amount'), expectedLimits.minAmount.toFixed());
    assert.equal(rawNumber(res.body, 'max_amount'), expectedLimits.maxAmount.toFixed());
    assertPlainDecimal(rawNumber(res.body, 'min_amount'), 18, 'min_amount');
  });

  it('tickers and networks are case-insensitive; the response names the coins in upper case', async () => {
    const upper = await getRates(t, 'coin_from=BTC&coin_to=USDT&network_to=TRC20');
    const lower = await getRates(t, 'coin_from=btc&coin_to=usdt&network_to=trc20');
    const mixed = await getRates(t, 'coin_from=Btc&coin_to=uSdT&network_to=Trc20&network_from=bTc');
    for (const res of [upper, lower, mixed]) {
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json<Record<string, unknown>>();
      assert.equal(body.coin_from, 'BTC');
      assert.equal(body.coin_to, 'USDT');
    }
    assert.equal(lower.body, upper.body);
    assert.equal(mixed.body, upper.body);
    const expected = oracle({ from: 'BTC', to: 'USDT/TRC20' });
    assert.equal(rawNumber(upper.body, 'rate'), expected.rate.toFixed());
    assert.equal(rawNumber(upper.body, 'min_amount'), expected.minAmount.toFixed());
    assert.equal(rawNumber(upper.body, 'max_amount'), expected.maxAmount.toFixed());

    // Another network of the same coin is another currency, with its own payout fee.
    const erc20 = await getRates(t, 'coin_from=btc&coin_to=usdt&network_to=erc20');
    assert.equal(erc20.statusCode, 200, erc20.body);
    assert.equal(rawNumber(erc20.body, 'rate'), oracle({ from: 'BTC', to: 'USDT/ERC20' }).rate.toFixed());
    assert.notEqual(rawNumber(erc20.body, 'rate'), rawNumber(upper.body, 'rate'));
  });

  it('rate_type=float explicitly is the default', async () => {
    const implicit = await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=0.1');
    const explicit = await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=0.1&rate_type=float');
    assert.equal(explicit.statusCode, 200, explicit.body);
    assert.equal(explicit.body, implicit.body);
  });

  it('rate_type=fixed without a key: the fixed rate at the default markup, with a quote_id and expires_in 300', async () => {
    const fixed = await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=0.1&rate_type=fixed');
    const float = await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=0.1');
    assert.equal(fixed.statusCode, 200, fixed.body);
    const body = fixed.json<Record<string, unknown>>();
    // A fixed quote carries both (docs/contract.md §3); one asked without a key may be locked by any
    // partner's order (docs/adr/0005-quotes-and-prices.md), and issuing it stores nothing.
    assert.deepEqual(Object.keys(body).sort(), FIXED_KEYS);
    assert.equal(body.rate_type, 'fixed');
    assert.equal(body.coin_from, 'BTC');
    assert.equal(body.coin_to, 'ETH');
    assert.equal(body.expires_in, 300);
    assert.match(body.quote_id as string, QUOTE_ID);

    const expected = oracle({ from: 'BTC', to: 'ETH', amount: '0.1', rateType: 'fixed' });
    assert.equal(rawNumber(fixed.body, 'rate'), expected.rate.toFixed());
    assert.equal(rawNumber(fixed.body, 'min_amount'), expected.minAmount.toFixed());
    assert.equal(rawNumber(fixed.body, 'max_amount'), expected.maxAmount.toFixed());
    assert.ok(new Decimal(rawNumber(fixed.body, 'rate')).lt(new Decimal(rawNumber(float.body, 'rate'))));
  });

  it('rate_type=fixed with a key: expires_in 300 (integer seconds), a signed quote_id, the fixed premium lowers the rate', async () => {
    const partner = await t.createPartner({ markup_bps: 50 });
    const headers = { 'x-api-key': partner.apiKey };
    const fixed = await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=0.1&rate_type=fixed', headers);
    const float = await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=0.1', headers);
    assert.equal(fixed.statusCode, 200, fixed.body);
    const body = fixed.json<Record<string, unknown>>();
    assert.deepEqual(Object.keys(body).sort(), FIXED_KEYS);
    assert.equal(body.rate_type, 'fixed');
    assert.equal(rawNumber(fixed.body, 'expires_in'), '300');
    assert.equal(body.expires_in, 300);
    assert.equal(typeof body.quote_id, 'string');
    assert.match(body.quote_id as string, QUOTE_ID);

    const expected = oracle({ from: 'BTC', to: 'ETH', amount: '0.1', rateType: 'fixed', markupBps: 50 });
    assert.equal(rawNumber(fixed.body, 'rate'), expected.rate.toFixed());
    assert.ok(new Decimal(rawNumber(fixed.body, 'rate')).lt(new Decimal(rawNumber(float.body, 'rate'))));

    // Every fixed quote is a new one.
    const again = await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=0.1&rate_type=fixed', headers);
    assert.equal(again.statusCode, 200, again.body);
    assert.notEqual(again.json<{ quote_id: string }>().quote_id, body.quote_id);
  });

  describe('partner pricing', () => {
    let zero: { id: string; apiKey: string; keyId: string };
    let high: { id: string; apiKey: string; keyId: string };
    before(async () => {
      zero = await t.createPartner({ markup_bps: 0 });
      high = await t.createPartner({ markup_bps: 200 });
    });

    it('X-API-Key of a 0 bps partner: a higher rate than anonymous (default 50 bps); 200 bps: lower', async () => {
      const query = 'coin_from=BTC&coin_to=ETH&amount=0.5';
      const anonymous = await getRates(t, query);
      const withZero = await getRates(t, query, { 'x-api-key': zero.apiKey });
      const withHigh = await getRates(t, query, { 'x-api-key': high.apiKey });
      for (const res of [anonymous, withZero, withHigh]) {
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(Object.keys(res.json<object>()).sort(), FLOAT_KEYS);
      }
      const rate = (res: { body: string }) => new Decimal(rawNumber(res.body, 'rate'));
      assert.equal(rawNumber(withZero.body, 'rate'), oracle({ from: 'BTC', to: 'ETH', amount: '0.5', markupBps: 0 }).rate.toFixed());
      assert.equal(rawNumber(withHigh.body, 'rate'), oracle({ from: 'BTC', to: 'ETH', amount: '0.5', markupBps: 200 }).rate.toFixed());
      assert.ok(rate(withZero).gt(rate(anonymous)));
      assert.ok(rate(withHigh).lt(rate(anonymous)));
      // Limits follow the partner's fees too (the destination minimum converts back through them).
      assert.equal(rawNumber(withHigh.body, 'min_amount'), oracle({ from: 'BTC', to: 'ETH', markupBps: 200 }).minAmount.toFixed());
    });

    it('Authorization: Bearer prices the same as X-API-Key', async () => {
      const query = 'coin_from=BTC&coin_to=ETH&amount=0.5';
      const header = await getRates(t, query, { 'x-api-key': zero.apiKey });
      const bearer = await getRates(t, query, { authorization: `Bearer ${zero.apiKey}` });
      assert.equal(bearer.statusCode, 200, bearer.body);
      assert.equal(bearer.body, header.body);
      const highBearer = await getRates(t, query, { authorization: `Bearer ${high.apiKey}` });
      assert.equal(rawNumber(highBearer.body, 'rate'), oracle({ from: 'BTC', to: 'ETH', amount: '0.5', markupBps: 200 }).rate.toFixed());
    });

    it('a fixed quote with a key carries the partner markup plus the premium', async () => {
      const res = await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=0.5&rate_type=fixed', { 'x-api-key': zero.apiKey });
      assert.equal(res.statusCode, 200, res.body);
      const expected = oracle({ from: 'BTC', to: 'ETH', amount: '0.5', rateType: 'fixed', markupBps: 0 });
      assert.equal(rawNumber(res.body, 'rate'), expected.rate.toFixed());
    });

    it('an invalid key is 401 {detail, code}, never silently ignored', async () => {
      const query = 'coin_from=BTC&coin_to=ETH';
      const wrongSecret = `${zero.keyId}.${'x'.repeat(43)}`;
      const attempts: Record<string, string>[] = [
        { 'x-api-key': 'not-a-key' },
        { 'x-api-key': wrongSecret },
        { authorization: `Bearer ${wrongSecret}` },
        { authorization: 'Basic abc' },
      ];
      for (const headers of attempts) {
        assertError(await getRates(t, query, headers), 401, 'unauthorized');
      }
    });

    it("a suspended partner's key is 403", async () => {
      const partner = await t.createPartner({ markup_bps: 10 });
      const ok = await getRates(t, 'coin_from=BTC&coin_to=ETH', { 'x-api-key': partner.apiKey });
      assert.equal(ok.statusCode, 200, ok.body);
      const suspend = await t.admin('PATCH', `/admin/v1/partners/${partner.id}`, { status: 'suspended' });
      assert.equal(suspend.statusCode, 200, suspend.body);
      assertError(await getRates(t, 'coin_from=BTC&coin_to=ETH', { 'x-api-key': partner.apiKey }), 403, 'forbidden');
      assertError(
        await getRates(t, 'coin_from=BTC&coin_to=ETH', { authorization: `Bearer ${partner.apiKey}` }),
        403,
        'forbidden',
      );
    });
  });

  describe('hot path', () => {
    it('no quote issues a database query: float or fixed, anonymous or keyed', async (ctx) => {
      // Warm-up: compiled schemas, serializers and lazily built state.
      for (let i = 0; i < 3; i++) assert.equal((await getRates(t, 'coin_from=BTC&coin_to=ETH')).statusCode, 200);
      // The orders-by-status gauge recounts on its own 15 s timer; a loaded machine can reach it
      // inside this test, and its query is not a quote's.
      t.runtime.orderStatusGauge.stop();

      const executor = t.db.handle.db.getExecutor();
      const executeQuery = ctx.mock.method(executor, 'executeQuery');
      const queries = [
        'coin_from=BTC&coin_to=ETH',
        'coin_from=btc&coin_to=usdt&network_to=trc20&amount=0.01',
        'coin_from=ETH&coin_to=LTC&amount=1.5&rate_type=float',
        'coin_from=USDT&network_from=ERC20&coin_to=SOL&amount=100',
      ];
      for (let round = 0; round < 10; round++) {
        for (const query of queries) {
          const res = await getRates(t, query);
          assert.equal(res.statusCode, 200, res.body);
        }
      }
      // Error outcomes are decided in memory as well.
      assert.equal((await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=0.0001')).statusCode, 422);
      assert.equal((await getRates(t, 'coin_from=BTC&coin_to=NOPE')).statusCode, 400);
      assert.equal(executeQuery.mock.callCount(), 0, 'float quotes must be served from memory');

      // A fixed quote is a signed token: it persists nothing.
      for (let round = 0; round < 10; round++) {
        assert.equal((await getRates(t, 'coin_from=BTC&coin_to=ETH&rate_type=fixed')).statusCode, 200);
      }
      assert.equal(executeQuery.mock.callCount(), 0, 'anonymous fixed quotes must not touch the database');

      const partner = await t.createPartner();
      executeQuery.mock.resetCalls();
      const fixed = await getRates(t, 'coin_from=BTC&coin_to=ETH&rate_type=fixed', { 'x-api-key': partner.apiKey });
      assert.equal(fixed.statusCode, 200, fixed.body);
      assert.match(fixed.json<{ quote_id: string }>().quote_id, QUOTE_ID);
      // The key was read once above (createPartner's first use is this request): only that.
      const sqlTexts = executeQuery.mock.calls.map((call) => (call.arguments[0] as { sql: string }).sql);
      assert.ok(sqlTexts.every((text) => !/^\s*(insert|update|delete)\b/i.test(text)), sqlTexts.join('\n'));
      executeQuery.mock.resetCalls();
      for (let round = 0; round < 10; round++) {
        assert.equal((await getRates(t, 'coin_from=BTC&coin_to=ETH&rate_type=fixed', { 'x-api-key': partner.apiKey })).statusCode, 200);
      }
      assert.equal(executeQuery.mock.callCount(), 0, 'keyed fixed quotes must not touch the database');
    });
  });
});
