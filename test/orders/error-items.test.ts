import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { assertErrorItems } from '../helpers/error-items.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { assertError, rawNumber } from '../rates/rates-helpers.js';

/**
 * Errors a program can act on (docs/contract.md §10.4, issue 27.1): every 4xx of POST /partner/orders keeps
 * v1.1's status, `code` and `detail` and lists every problem of the request in `errors`, each
 * `{code, field, detail}` with a code of the closed list; amount items carry the limits in both
 * units. A refused request stores nothing.
 */

const ETH_ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const BTC_ADDRESS = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const XRP_ADDRESS = 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh';
const AMOUNT_LIMITS = ['min_amount', 'max_amount', 'min_amount_to', 'max_amount_to'];

const BTC_ETH = {
  coin_from: 'BTC',
  network_from: 'BTC',
  coin_to: 'ETH',
  network_to: 'ETH',
  amount_from: 0.1,
  rate_type: 'float',
  recipient_address: ETH_ADDRESS,
};

type Item = { code: string; field: string | null; detail: string } & Record<string, unknown>;

/** The items as `code@field`, in order: what a program branches on. */
const summary = (items: readonly Item[]): string[] => items.map((item) => `${item.code}@${item.field ?? 'null'}`);

describe('POST /partner/orders: every problem in errors (docs/contract.md §10.4)', () => {
  let t: TestApp;
  let apiKey: string;
  before(async () => {
    t = await buildTestApp({ env: { WORKER: 'off' } });
    ({ apiKey } = await t.createPartner({ rate_limit_per_minute: 100_000 }));
  });
  after(() => t.close());

  const post = (body: object | string): Promise<LightMyRequestResponse> =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });

  /** The error body (status and top-level code as v1.1 said), its items checked against the closed list. */
  const refused = async (body: object | string, status: number, code: string, extraKeys: string[] = []) => {
    const orders = async () => (await t.db.handle.db.selectFrom('orders').select('id').execute()).length;
    const before = await orders();
    const error = assertError(await post(body), status, code, extraKeys);
    const items = assertErrorItems(error) as Item[];
    assert.equal(await orders(), before, 'a refused request stores nothing');
    return { error, items };
  };

  it('a bad recipient address and a bad refund address: 400 bad_request with two address_invalid items', async () => {
    const { error, items } = await refused({ ...BTC_ETH, recipient_address: BTC_ADDRESS, refund_address: ETH_ADDRESS }, 400, 'bad_request');
    assert.deepEqual(summary(items), ['address_invalid@recipient_address', 'address_invalid@refund_address']);
    // The top-level detail is the first problem's, as v1.1 answered.
    assert.match(error.detail, /^recipient_address is not a valid ETH address/);
    assert.equal(items[0]?.detail, error.detail);
    assert.match(items[1]?.detail ?? '', /^refund_address is not a valid BTC address/);
  });

  it('an unknown coin on each side: two currency_unsupported items; an unknown network: network_unsupported', async () => {
    const both = await refused({ ...BTC_ETH, coin_from: 'NOPE', coin_to: 'NADA' }, 400, 'bad_request');
    assert.deepEqual(summary(both.items), ['currency_unsupported@coin_from', 'currency_unsupported@coin_to']);
    assert.match(both.error.detail, /coin_from "NOPE" is not a known coin/);
    const network = await refused({ ...BTC_ETH, network_from: 'TRC20', network_to: 'SOL' }, 400, 'bad_request');
    assert.deepEqual(summary(network.items), ['network_unsupported@network_from', 'network_unsupported@network_to']);
    // A known coin with an unknown coin on the other side: the address of the known side is still checked.
    const mixed = await refused({ ...BTC_ETH, coin_from: 'NOPE', recipient_address: 'not-an-address' }, 400, 'bad_request');
    assert.deepEqual(summary(mixed.items), ['currency_unsupported@coin_from', 'address_invalid@recipient_address']);
  });

  it('memos: memo_required without the tag, memo_invalid for a malformed one or one a network does not use', async () => {
    const toXrp = { ...BTC_ETH, coin_to: 'XRP', network_to: 'XRP', recipient_address: XRP_ADDRESS };
    assert.deepEqual(summary((await refused(toXrp, 400, 'bad_request')).items), ['memo_required@recipient_address_tag']);
    assert.deepEqual(summary((await refused({ ...toXrp, recipient_address_tag: 'memo text' }, 400, 'bad_request')).items), [
      'memo_invalid@recipient_address_tag',
    ]);
    assert.deepEqual(summary((await refused({ ...BTC_ETH, recipient_address_tag: '123' }, 400, 'bad_request')).items), [
      'memo_invalid@recipient_address_tag',
    ]);
    // Both sides' memos at once: the recipient's and the refund address's.
    const fromXrp = { ...toXrp, coin_from: 'XRP', network_from: 'XRP', coin_to: 'ETH', network_to: 'ETH', recipient_address: ETH_ADDRESS };
    const both = await refused({ ...fromXrp, amount_from: 100, recipient_address_tag: '1', refund_address: XRP_ADDRESS }, 400, 'bad_request');
    assert.deepEqual(summary(both.items), ['memo_invalid@recipient_address_tag', 'memo_required@refund_address_tag']);
  });

  it('an amount out of range: 422 amount_out_of_range (v1.1) with an amount_below_min / amount_above_max item carrying the limits', async () => {
    const low = await refused({ ...BTC_ETH, amount_from: 0.00000001 }, 422, 'amount_out_of_range', AMOUNT_LIMITS);
    assert.deepEqual(summary(low.items), ['amount_below_min@amount_from']);
    const item = low.items[0];
    assert.ok(item !== undefined);
    for (const limit of AMOUNT_LIMITS) assert.equal(item[limit], low.error[limit], limit);
    assert.ok(Number(item.min_amount) > 0.00000001);
    const high = await refused({ ...BTC_ETH, amount_from: 1_000_000 }, 422, 'amount_out_of_range', AMOUNT_LIMITS);
    assert.deepEqual(summary(high.items), ['amount_above_max@amount_from']);
    // A reverse order names amount_to; the limits are exact decimals, as at the top.
    const { amount_from: _, ...reverse } = BTC_ETH;
    const res = await post({ ...reverse, amount_to: 1_000_000 });
    assertError(res, 422, 'amount_out_of_range', AMOUNT_LIMITS);
    assert.deepEqual(summary(res.json<{ errors: Item[] }>().errors), ['amount_above_max@amount_to']);
    assert.equal(rawNumber(res.body.slice(res.body.indexOf('"errors"')), 'max_amount_to'), rawNumber(res.body, 'max_amount_to'));
  });

  it('problems of different kinds at once: the top-level answer is v1.1\'s (the first), every item listed', async () => {
    // v1.1 checked the addresses before the amount: 400 bad_request, and now the amount's item too.
    const { error, items } = await refused({ ...BTC_ETH, amount_from: 0.00000001, recipient_address: 'nope', refund_address: 'nope' }, 400, 'bad_request');
    assert.deepEqual(summary(items), ['address_invalid@recipient_address', 'address_invalid@refund_address', 'amount_below_min@amount_from']);
    assert.equal(error.min_amount, undefined, 'the limits stay on the item when the answer is not an amount error');
    assert.ok(items[2]?.min_amount !== undefined);
    // Too many decimals for BTC (8): amount_invalid, beside an address problem.
    const decimals = await refused({ ...BTC_ETH, amount_from: 0.123456789, refund_address: 'nope' }, 400, 'bad_request');
    assert.deepEqual(summary(decimals.items), ['address_invalid@refund_address', 'amount_invalid@amount_from']);
  });

  it('the pair: pair_unavailable for the same currency both sides; a fixed quote_id that is not one: quote_invalid on quote_id', async () => {
    const same = await refused({ ...BTC_ETH, coin_to: 'BTC', network_to: 'BTC', recipient_address: BTC_ADDRESS }, 422, 'pair_unavailable');
    assert.deepEqual(summary(same.items), ['pair_unavailable@null']);
    const quote = await refused({ ...BTC_ETH, rate_type: 'fixed', quote_id: 'forged', refund_address: 'nope' }, 400, 'bad_request');
    assert.deepEqual(summary(quote.items), ['address_invalid@refund_address', 'quote_invalid@quote_id']);
    const alone = await refused({ ...BTC_ETH, rate_type: 'fixed', quote_id: 'forged' }, 422, 'quote_invalid');
    assert.deepEqual(summary(alone.items), ['quote_invalid@quote_id']);
  });

  it('schema validation: one item per failed keyword, its field from the instance path', async () => {
    const { recipient_address: _r, coin_to: _c, ...missing } = BTC_ETH;
    const res = await refused({ ...missing, rate_type: 'sometimes', extra: 1 }, 400, 'bad_request');
    assert.match(res.error.detail, /missing required field "coin_to"/);
    assert.deepEqual(summary(res.items).sort(), [
      'bad_request@coin_to',
      'bad_request@extra',
      'bad_request@rate_type',
      'bad_request@recipient_address',
    ]);
    // An amount that is no amount is amount_invalid, even among other problems.
    const amount = await refused({ ...BTC_ETH, amount_from: true, coin_from: 5 }, 400, 'bad_request');
    assert.deepEqual(summary(amount.items).sort(), ['amount_invalid@amount_from', 'bad_request@coin_from']);
  });

  it('PUT refund-address and GET addresses/validate name their fields the same way', async () => {
    const created = await post(BTC_ETH);
    assert.equal(created.statusCode, 201, created.body);
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/partner/orders/${created.json<{ id: string }>().id}/refund-address`,
      headers: { authorization: `Bearer ${apiKey}` },
      payload: { refund_address: ETH_ADDRESS },
    });
    assert.deepEqual(summary(assertErrorItems(assertError(put, 400, 'bad_request')) as Item[]), ['address_invalid@refund_address']);
    const validate = async (query: string) =>
      summary(assertErrorItems(assertError(await t.app.inject({ method: 'GET', url: `/api/v1/partner/addresses/validate?${query}` }), 400, 'bad_request')));
    assert.deepEqual(await validate(`coin=NOPE&address=${ETH_ADDRESS}`), ['currency_unsupported@coin']);
    assert.deepEqual(await validate(`coin=ETH&network=TRC20&address=${ETH_ADDRESS}`), ['network_unsupported@network']);
    assert.deepEqual(await validate(`coin=USDT&address=${ETH_ADDRESS}`), ['bad_request@network']);
    assert.deepEqual(await validate('coin=ETH'), ['bad_request@address']);
  });

  it('every other 4xx has errors too: one item of its code, without a field', async () => {
    const unauthorized = await t.app.inject({ method: 'POST', url: '/api/v1/partner/orders', payload: BTC_ETH });
    const body = assertError(unauthorized, 401, 'unauthorized');
    assert.deepEqual(body.errors, [{ code: 'unauthorized', field: null, detail: body.detail }]);
    const missing = await t.app.inject({ method: 'GET', url: '/api/v1/partner/orders/EX-AAAAAA', headers: { authorization: `Bearer ${apiKey}` } });
    const notFound = assertError(missing, 404, 'not_found');
    assert.deepEqual(notFound.errors, [{ code: 'not_found', field: null, detail: notFound.detail }]);
    const json = assertError(await post('{"coin_from":'), 400, 'invalid_json');
    assert.deepEqual(json.errors, [{ code: 'invalid_json', field: null, detail: json.detail }]);
  });
});
