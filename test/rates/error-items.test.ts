import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertErrorItems } from '../helpers/error-items.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { assertError, currencyIds, getRates } from './rates-helpers.js';

/**
 * GET /partner/rates' errors as a program reads them (docs/contract.md §10.4, issue 27.1): v1.1's status,
 * `code` and `detail`, and in `errors` every problem found, each naming its query field; an
 * amount item carries the pair limits in both units.
 */

type Item = { code: string; field: string | null } & Record<string, unknown>;
const summary = (body: Record<string, unknown>): string[] =>
  (assertErrorItems(body) as Item[]).map((item) => `${item.code}@${item.field ?? 'null'}`);
const AMOUNT_LIMITS = ['min_amount', 'max_amount', 'min_amount_to', 'max_amount_to'];

describe('GET /api/v1/partner/rates: errors lists every problem', () => {
  let t: TestApp;
  let ids: Map<string, string>;
  before(async () => {
    t = await buildTestApp({ env: { WORKER: 'off', PRICE_POLL_SECONDS: '3600' } });
    ids = await currencyIds(t);
  });
  after(() => t.close());

  it('both coins unknown: 400 bad_request with a currency_unsupported item for each', async () => {
    const error = assertError(await getRates(t, 'coin_from=NOPE&coin_to=NADA'), 400, 'bad_request');
    assert.match(error.detail, /coin_from "NOPE" is not a known coin/);
    assert.deepEqual(summary(error), ['currency_unsupported@coin_from', 'currency_unsupported@coin_to']);
  });

  it('networks: network_unsupported for one the coin is not on, bad_request on the field when one is needed', async () => {
    assert.deepEqual(summary(assertError(await getRates(t, 'coin_from=BTC&network_from=ERC20&coin_to=USDT'), 400, 'bad_request')), [
      'network_unsupported@network_from',
      'bad_request@network_to',
    ]);
  });

  it('an amount out of range: 422 amount_out_of_range with an item carrying the limits in both units', async () => {
    const low = assertError(await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=0.00000001'), 422, 'amount_out_of_range', AMOUNT_LIMITS);
    assert.deepEqual(summary(low), ['amount_below_min@amount']);
    const item = (low.errors as Item[])[0];
    for (const limit of AMOUNT_LIMITS) assert.equal(item?.[limit], low[limit], limit);
    const high = assertError(await getRates(t, 'coin_from=BTC&coin_to=ETH&amount_to=100000000'), 422, 'amount_out_of_range', AMOUNT_LIMITS);
    assert.deepEqual(summary(high), ['amount_above_max@amount_to']);
  });

  it('a pair that cannot be quoted: pair_unavailable naming each side that stops it', async () => {
    const disable = async (key: string, changes: Record<string, unknown>) =>
      assert.equal((await t.admin('PATCH', `/admin/v1/currencies/${ids.get(key) ?? ''}`, changes)).statusCode, 200);
    await disable('LTC/LTC', { is_deposit_enabled: false });
    await disable('DOGE/DOGE', { is_active: false });
    const error = assertError(await getRates(t, 'coin_from=LTC&coin_to=DOGE'), 422, 'pair_unavailable');
    assert.match(error.detail, /DOGE is not active/);
    assert.deepEqual(summary(error), ['pair_unavailable@coin_to', 'pair_unavailable@coin_from']);
  });

  it('query validation: one item per failed keyword', async () => {
    const error = assertError(await getRates(t, 'coin_from=BT-C&foo=1&rate_type=bogus&amount=1e3'), 400, 'bad_request');
    assert.deepEqual(summary(error).sort(), [
      'amount_invalid@amount',
      'bad_request@coin_from',
      'bad_request@coin_to',
      'bad_request@foo',
      'bad_request@rate_type',
    ]);
  });
});
