import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';
import { assertError, currencyIds, getRates, oracle, rawNumber } from './rates-helpers.js';

/**
 * Every error outcome of GET /partner/rates (spec §7, docs/contract.md §3): 400 for what the client wrote
 * wrong, 422 for a well-formed request the catalog or the market cannot serve. Each catalog change
 * uses its own coin so the tests stay independent. The clock is manual and the background price
 * poll is pushed out, so prices only age when the last test moves the clock.
 */
describe('GET /api/v1/partner/rates: errors', () => {
  const clock = new ManualClock();
  let t: TestApp;
  let ids: Map<string, string>;
  before(async () => {
    t = await buildTestApp({ clock, env: { PRICE_POLL_SECONDS: '3600' } });
    ids = await currencyIds(t);
  });
  after(() => t.close());

  const patchCurrency = async (key: string, changes: Record<string, unknown>): Promise<void> => {
    const id = ids.get(key);
    assert.ok(id !== undefined, key);
    const res = await t.admin('PATCH', `/admin/v1/currencies/${id}`, changes);
    assert.equal(res.statusCode, 200, res.body);
  };

  describe('400: missing or invalid parameters', () => {
    it('missing coin_from or coin_to', async () => {
      assert.match(assertError(await getRates(t, 'coin_to=ETH'), 400, 'bad_request').detail, /coin_from/);
      assert.match(assertError(await getRates(t, 'coin_from=BTC'), 400, 'bad_request').detail, /coin_to/);
      assertError(await getRates(t, ''), 400, 'bad_request');
      assertError(await getRates(t, 'coin_from=&coin_to=ETH'), 400, 'bad_request');
    });

    it('unknown coin on either side', async () => {
      assert.match(assertError(await getRates(t, 'coin_from=NOPE&coin_to=ETH'), 400, 'bad_request').detail, /NOPE/);
      assert.match(assertError(await getRates(t, 'coin_from=BTC&coin_to=nope'), 400, 'bad_request').detail, /nope/i);
      assertError(await getRates(t, 'coin_from=BT-C&coin_to=ETH'), 400, 'bad_request');
    });

    it('a coin on several networks without its network: 400 naming the networks', async () => {
      for (const query of ['coin_from=BTC&coin_to=USDT', 'coin_from=usdt&coin_to=BTC']) {
        const { detail } = assertError(await getRates(t, query), 400, 'bad_request');
        for (const network of ['BEP20', 'ERC20', 'TRC20']) assert.ok(detail.includes(network), detail);
      }
      // Giving the network fixes it.
      assert.equal((await getRates(t, 'coin_from=USDT&network_from=BEP20&coin_to=BTC&amount=100')).statusCode, 200);
    });

    it('a network the coin is not on', async () => {
      assertError(await getRates(t, 'coin_from=BTC&coin_to=USDT&network_to=SOL'), 400, 'bad_request');
      assertError(await getRates(t, 'coin_from=BTC&network_from=ERC20&coin_to=ETH'), 400, 'bad_request');
      assertError(await getRates(t, 'coin_from=BTC&coin_to=USDT&network_to=NOPE'), 400, 'bad_request');
    });

    it('malformed amounts', async () => {
      for (const amount of ['abc', '1e3', '-1', '0x10', '1.', '.5', '+1', '1,5', '01', '1.2.3', '', ' 1', 'NaN', 'Infinity']) {
        const res = await getRates(t, `coin_from=BTC&coin_to=ETH&amount=${encodeURIComponent(amount)}`);
        assertError(res, 400, 'bad_request');
      }
    });

    it('an amount with more decimals than coin_from allows', async () => {
      const { detail } = assertError(await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=0.000000001'), 400, 'bad_request');
      assert.match(detail, /8 decimals/);
      // 8 places is fine, and trailing zeros beyond them do not count as precision.
      assert.equal((await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=0.00050001')).statusCode, 200);
      assert.equal((await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=0.0005000000')).statusCode, 200);
    });

    it('unknown query parameters and a bogus rate_type', async () => {
      const unknown = assertError(await getRates(t, 'coin_from=BTC&coin_to=ETH&foo=1'), 400, 'bad_request');
      assert.match(unknown.detail, /foo/);
      assertError(await getRates(t, 'coin_from=BTC&coin_to=ETH&amount_from=1'), 400, 'bad_request');
      assertError(await getRates(t, 'coin_from=BTC&coin_to=ETH&rate_type=bogus'), 400, 'bad_request');
      assertError(await getRates(t, 'coin_from=BTC&coin_to=ETH&rate_type=FIXED'), 400, 'bad_request');
    });
  });

  describe('422: well-formed, not available', () => {
    it('the same currency on both sides', async () => {
      assertError(await getRates(t, 'coin_from=BTC&coin_to=btc'), 422, 'pair_unavailable');
      assertError(await getRates(t, 'coin_from=USDT&network_from=TRC20&coin_to=USDT&network_to=trc20'), 422, 'pair_unavailable');
      // One coin on two networks is two currencies.
      assert.equal((await getRates(t, 'coin_from=USDT&network_from=TRC20&coin_to=USDT&network_to=ERC20&amount=100')).statusCode, 200);
    });

    it('a currency made inactive, on either side', async () => {
      assert.equal((await getRates(t, 'coin_from=LTC&coin_to=BTC')).statusCode, 200);
      await patchCurrency('LTC/LTC', { is_active: false });
      assert.match(assertError(await getRates(t, 'coin_from=LTC&coin_to=BTC'), 422, 'pair_unavailable').detail, /not active/);
      assertError(await getRates(t, 'coin_from=BTC&coin_to=LTC'), 422, 'pair_unavailable');
      await patchCurrency('LTC/LTC', { is_active: true });
      assert.equal((await getRates(t, 'coin_from=BTC&coin_to=LTC')).statusCode, 200);
    });

    it('deposits disabled on the source', async () => {
      await patchCurrency('DOGE/DOGE', { is_deposit_enabled: false });
      assert.match(assertError(await getRates(t, 'coin_from=DOGE&coin_to=BTC'), 422, 'pair_unavailable').detail, /deposits/);
      // DOGE can still be paid out.
      assert.equal((await getRates(t, 'coin_from=BTC&coin_to=DOGE')).statusCode, 200);
    });

    it('withdrawals disabled on the target; the reverse direction still works', async () => {
      await patchCurrency('TRX/TRX', { is_withdraw_enabled: false });
      assert.match(assertError(await getRates(t, 'coin_from=BTC&coin_to=TRX'), 422, 'pair_unavailable').detail, /withdrawals/);
      const reverse = await getRates(t, 'coin_from=TRX&coin_to=BTC');
      assert.equal(reverse.statusCode, 200, reverse.body);
      assert.equal(rawNumber(reverse.body, 'rate'), oracle({ from: 'TRX', to: 'BTC' }).rate.toFixed());
    });

    it('an amount below the minimum or above the maximum: 422 with the pair limits of the 200 response', async () => {
      const ok = await getRates(t, 'coin_from=BTC&coin_to=ETH');
      assert.equal(ok.statusCode, 200, ok.body);
      const minText = rawNumber(ok.body, 'min_amount');
      const maxText = rawNumber(ok.body, 'max_amount');
      assert.equal(minText, '0.00029022');
      assert.equal(maxText, '10');

      for (const amount of ['0.0001', '0.00029021', '10.00000001', '11']) {
        const res = await getRates(t, `coin_from=BTC&coin_to=ETH&amount=${amount}`);
        const body = assertError(res, 422, 'amount_out_of_range', ['min_amount', 'max_amount', 'min_amount_to', 'max_amount_to']);
        assert.equal(typeof body.min_amount, 'number');
        assert.equal(typeof body.max_amount, 'number');
        assert.equal(rawNumber(res.body, 'min_amount'), minText);
        assert.equal(rawNumber(res.body, 'max_amount'), maxText);
        assert.match(body.detail, Number(amount) < 1 ? /below the minimum/ : /above the maximum/);
      }
      // The limits themselves are inclusive.
      assert.equal((await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=0.00029022')).statusCode, 200);
      assert.equal((await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=10')).statusCode, 200);
      // Zero is a well-formed amount below every minimum.
      assertError(await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=0'), 422, 'amount_out_of_range', ['min_amount', 'max_amount', 'min_amount_to', 'max_amount_to']);
    });

    it('a pair whose minimum exceeds its maximum is unavailable', async () => {
      assert.equal((await getRates(t, 'coin_from=BTC&coin_to=SOL')).statusCode, 200);
      // 20000 SOL at 150 USD is 3 million USD: more than the 10 BTC source maximum is worth.
      await patchCurrency('SOL/SOL', { min_amount: '20000' });
      for (const query of ['coin_from=BTC&coin_to=SOL', 'coin_from=BTC&coin_to=SOL&amount=1', 'coin_from=BTC&coin_to=SOL&rate_type=fixed']) {
        assert.match(assertError(await getRates(t, query), 422, 'pair_unavailable').detail, /not available/);
      }
    });

    it('no fresh price: 422 until the price book is refreshed', async () => {
      assert.equal((await getRates(t, 'coin_from=BTC&coin_to=ETH')).statusCode, 200);
      clock.advance(60_001); // PRICE_MAX_AGE_SECONDS is 60 s; the poll is an hour away
      const stale = assertError(await getRates(t, 'coin_from=BTC&coin_to=ETH'), 422, 'pair_unavailable');
      assert.match(stale.detail, /no fresh price/);
      assertError(await getRates(t, 'coin_from=BTC&coin_to=ETH&rate_type=fixed'), 422, 'pair_unavailable');

      const put = await t.admin('PUT', '/admin/v1/prices/BTC', { price_usd: '67000' });
      assert.equal(put.statusCode, 200, put.body);
      const fresh = await getRates(t, 'coin_from=BTC&coin_to=ETH');
      assert.equal(fresh.statusCode, 200, fresh.body);
      assert.equal(rawNumber(fresh.body, 'rate'), oracle({ from: 'BTC', to: 'ETH' }).rate.toFixed());
    });
  });
});
