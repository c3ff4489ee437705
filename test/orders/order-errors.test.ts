import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Decimal } from '../../src/domain/money.js';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { assertError, currencyIds, oracle, rawNumber } from '../rates/rates-helpers.js';

/**
 * Every way POST /partner/orders refuses a request (spec §4.3, §7; docs/contract.md §3): 400 for missing
 * or invalid parameters, 422 for a valid request that cannot be served. A refused request stores
 * nothing: no order, no event, no deposit address, no idempotency key.
 */

const ETH_ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const BTC_ADDRESS = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const XRP_ADDRESS = 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh';
const MARKUP_BPS = 20;

const BTC_ETH = {
  coin_from: 'BTC',
  network_from: 'BTC',
  coin_to: 'ETH',
  network_to: 'ETH',
  amount_from: 0.1,
  rate_type: 'float',
  recipient_address: ETH_ADDRESS,
};
const REQUIRED = ['coin_from', 'network_from', 'coin_to', 'network_to', 'amount_from', 'rate_type', 'recipient_address'] as const;

/** `address` with the character at `index` replaced. */
function corrupt(address: string, index: number, replacement: string): string {
  assert.notEqual(address[index], replacement);
  return address.slice(0, index) + replacement + address.slice(index + 1);
}

describe('POST /partner/orders: refusals', () => {
  let t: TestApp;
  let apiKey: string;
  let ids: Map<string, string>;
  let idempotencyCounter = 0;
  before(async () => {
    t = await buildTestApp({ env: { WORKER: 'off' } });
    ({ apiKey } = await t.createPartner({ markup_bps: MARKUP_BPS, rate_limit_per_minute: 100_000 }));
    ids = await currencyIds(t);
  });
  after(() => t.close());

  const post = (body: object | string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...headers },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });

  const stored = async () => {
    const db = t.db.handle.db;
    const n = async (query: { executeTakeFirstOrThrow(): Promise<{ n: unknown }> }) => Number((await query.executeTakeFirstOrThrow()).n);
    return {
      orders: await n(db.selectFrom('orders').select((eb) => eb.fn.countAll().as('n'))),
      events: await n(db.selectFrom('order_events').select((eb) => eb.fn.countAll().as('n'))),
      addresses: await n(db.selectFrom('deposit_addresses').select((eb) => eb.fn.countAll().as('n'))),
      assigned: await n(db.selectFrom('deposit_addresses').select((eb) => eb.fn.countAll().as('n')).where('order_id', 'is not', null)),
      keys: await n(db.selectFrom('idempotency_keys').select((eb) => eb.fn.countAll().as('n'))),
    };
  };

  /**
   * Sends the request twice (without and with an Idempotency-Key), expects the error both times,
   * and that nothing was stored. Returns the error body.
   */
  const refused = async (
    body: object | string,
    status: number,
    code: string,
    options: { detail?: RegExp; extraKeys?: string[]; headers?: Record<string, string> } = {},
  ): Promise<{ detail: string; code: string } & Record<string, unknown>> => {
    const before = await stored();
    const plain = await post(body, options.headers);
    const error = assertError(plain, status, code, options.extraKeys);
    if (options.detail !== undefined) assert.match(error.detail, options.detail);
    idempotencyCounter++;
    const keyed = await post(body, { ...options.headers, 'idempotency-key': `refused-${idempotencyCounter}` });
    assert.deepEqual(assertError(keyed, status, code, options.extraKeys), error);
    assert.deepEqual(await stored(), before, 'a refused request stores nothing');
    return error;
  };

  describe('400: missing or invalid parameters', () => {
    for (const field of REQUIRED) {
      it(`missing ${field}`, async () => {
        const body: Record<string, unknown> = { ...BTC_ETH };
        delete body[field];
        await refused(body, 400, 'bad_request', { detail: new RegExp(`"${field}"`) });
      });
    }

    it('wrong types', async () => {
      const cases: Array<[string, unknown]> = [
        ['coin_from', 5],
        ['network_to', null],
        ['amount_from', true],
        ['amount_from', null],
        ['amount_from', [0.1]],
        ['amount_from', { value: 0.1 }],
        ['rate_type', 'floating'],
        ['rate_type', 'FLOAT'],
        ['recipient_address', 42],
        ['recipient_address', ''],
        ['recipient_address_tag', 12345],
        ['refund_address', ''],
        ['coin_from', 'BT C'],
        ['coin_to', 'x'.repeat(13)],
      ];
      for (const [field, value] of cases) {
        const error = await refused({ ...BTC_ETH, [field]: value }, 400, 'bad_request');
        assert.match(error.detail, new RegExp(field), `${field}=${JSON.stringify(value)}: ${error.detail}`);
      }
    });

    it('amount_from as a string that is no plain decimal (v1.2 takes "0.1"; test/orders/amount-strings.test.ts)', async () => {
      for (const value of ['1e-3', '1E1', '-1', '+1', ' 1', '0x10', '1,5', 'abc', '', '.5', '1.', '0', '0.000']) {
        const error = await refused({ ...BTC_ETH, amount_from: value }, 400, 'bad_request', { detail: /amount_from/ });
        assert.deepEqual((error.errors as { code: string; field: string }[]).map(({ code, field }) => ({ code, field })), [
          { code: 'amount_invalid', field: 'amount_from' },
        ]);
      }
    });

    it('an unknown field', async () => {
      await refused({ ...BTC_ETH, extra_field: 1 }, 400, 'bad_request', { detail: /extra_field/ });
      await refused({ ...BTC_ETH, amount_to: 1 }, 400, 'bad_request', { detail: /amount_to/ });
    });

    it('amount_from zero or negative', async () => {
      for (const literal of ['0', '-0', '0.0', '-0.1', '-1']) {
        const payload = JSON.stringify({ ...BTC_ETH, amount_from: 7 }).replace('"amount_from":7', `"amount_from":${literal}`);
        await refused(payload, 400, 'bad_request', { detail: /amount_from/ });
      }
    });

    it('amounts written with an exponent are read exactly: 1e400 is above the maximum, 1e-400 is no amount', async () => {
      const withAmount = (literal: string) => JSON.stringify({ ...BTC_ETH, amount_from: 7 }).replace('"amount_from":7', `"amount_from":${literal}`);
      await refused(withAmount('1e400'), 422, 'amount_out_of_range', { detail: /above the maximum/, extraKeys: ['min_amount', 'max_amount', 'min_amount_to', 'max_amount_to'] });
      await refused(withAmount('1e-400'), 400, 'bad_request', { detail: /amount_from/ });
      const ok = await post(withAmount('1E-1'));
      assert.equal(ok.statusCode, 201, ok.body);
      assert.equal(rawNumber(ok.body, 'amount_from_expected'), '0.1');
    });

    it('more decimals than the source coin allows', async () => {
      // BTC has 8 decimals.
      await refused({ ...BTC_ETH, amount_from: 0.123456789 }, 400, 'bad_request', { detail: /8 decimals/ });
      const literal = JSON.stringify({ ...BTC_ETH, amount_from: 7 }).replace('"amount_from":7', '"amount_from":0.100000001');
      await refused(literal, 400, 'bad_request', { detail: /8 decimals/ });
      // XRP has 6.
      await refused(
        { ...BTC_ETH, coin_from: 'XRP', network_from: 'XRP', amount_from: 100.1234567 },
        400,
        'bad_request',
        { detail: /6 decimals/ },
      );
    });

    it('unknown coin or network', async () => {
      await refused({ ...BTC_ETH, coin_from: 'NOPE' }, 400, 'bad_request', { detail: /coin_from/ });
      await refused({ ...BTC_ETH, coin_to: 'NOPE' }, 400, 'bad_request', { detail: /coin_to/ });
      await refused({ ...BTC_ETH, network_from: 'ERC20' }, 400, 'bad_request', { detail: /network_from/ });
      await refused({ ...BTC_ETH, coin_to: 'USDT', network_to: 'SOL' }, 400, 'bad_request', { detail: /network_to/ });
    });

    it('recipient_address with one character corrupted (EIP-55 checksum) names recipient_address', async () => {
      // A letter's case flipped, a digit changed, a letter changed: all fail the checksum.
      for (const address of [corrupt(ETH_ADDRESS, 6, 'e'), corrupt(ETH_ADDRESS, 3, '9'), corrupt(ETH_ADDRESS, 10, 'E')]) {
        await refused({ ...BTC_ETH, recipient_address: address }, 400, 'bad_request', { detail: /recipient_address/ });
      }
      // Not an address of the destination network at all.
      await refused({ ...BTC_ETH, recipient_address: BTC_ADDRESS }, 400, 'bad_request', { detail: /recipient_address/ });
      await refused({ ...BTC_ETH, recipient_address: ETH_ADDRESS.slice(0, -1) }, 400, 'bad_request', {
        detail: /recipient_address/,
      });
    });

    it('a bad refund_address names refund_address', async () => {
      const bad = corrupt(BTC_ADDRESS, BTC_ADDRESS.length - 1, 'p');
      await refused({ ...BTC_ETH, refund_address: bad }, 400, 'bad_request', { detail: /refund_address/ });
      // The refund goes back on the SOURCE network: an ETH address is no refund address for BTC.
      await refused({ ...BTC_ETH, refund_address: ETH_ADDRESS }, 400, 'bad_request', { detail: /refund_address/ });
    });

    it('a memo destination (XRP) without recipient_address_tag, or with an invalid one', async () => {
      const toXrp = { ...BTC_ETH, coin_to: 'XRP', network_to: 'XRP', recipient_address: XRP_ADDRESS };
      await refused(toXrp, 400, 'bad_request', { detail: /recipient_address_tag/ });
      await refused({ ...toXrp, recipient_address_tag: null }, 400, 'bad_request', { detail: /recipient_address_tag/ });
      for (const tag of ['abc', '-1', '01', '4294967296']) {
        await refused({ ...toXrp, recipient_address_tag: tag }, 400, 'bad_request', { detail: /recipient_address_tag/ });
      }
      // The same request with a tag is fine.
      const ok = await post({ ...toXrp, recipient_address_tag: '4294967295' });
      assert.equal(ok.statusCode, 201, ok.body);
    });

    it('refund_address_tag (issue 26.3): checked as the refund-address PUT checks it, required with an XRP refund address', async () => {
      const fromXrp = { ...BTC_ETH, coin_from: 'XRP', network_from: 'XRP', amount_from: 100, refund_address: XRP_ADDRESS };
      await refused(fromXrp, 400, 'bad_request', { detail: /refund_address_tag is required/ });
      await refused({ ...fromXrp, refund_address_tag: null }, 400, 'bad_request', { detail: /refund_address_tag is required/ });
      for (const tag of ['abc', '-1', '01', '4294967296']) {
        await refused({ ...fromXrp, refund_address_tag: tag }, 400, 'bad_request', { detail: /refund_address_tag/ });
      }
      // A tag where the source uses none, and a tag with no refund address.
      await refused({ ...BTC_ETH, refund_address: BTC_ADDRESS, refund_address_tag: '123' }, 400, 'bad_request', { detail: /refund_address_tag/ });
      await refused({ ...BTC_ETH, refund_address_tag: '123' }, 400, 'bad_request', { detail: /refund_address_tag/ });
      // With a valid tag the order is made, and shows where a refund would go.
      const ok = await post({ ...fromXrp, refund_address_tag: '4294967295' });
      assert.equal(ok.statusCode, 201, ok.body);
      const order = ok.json<{ refund_address: string | null; refund_address_tag: string | null; actions: string[] }>();
      assert.equal(order.refund_address, XRP_ADDRESS);
      assert.equal(order.refund_address_tag, '4294967295');
      assert.deepEqual(order.actions, ['cancel', 'set_refund_address']);
    });

    it('a tag for a network without memos', async () => {
      await refused({ ...BTC_ETH, recipient_address_tag: '123' }, 400, 'bad_request', { detail: /recipient_address_tag/ });
    });

    it('a body that is not a JSON object, malformed JSON, or duplicate fields', async () => {
      await refused('[]', 400, 'bad_request');
      await refused('"order"', 400, 'bad_request');
      await refused('{"coin_from":', 400, 'invalid_json');
      // Which value would count is ambiguous: refused, never a 500.
      const duplicate = JSON.stringify(BTC_ETH).replace('"amount_from":0.1', '"amount_from":1,"amount_from":0.1');
      await refused(duplicate, 400, 'bad_request');
      const duplicateAddress = JSON.stringify(BTC_ETH).replace('"rate_type"', `"recipient_address":"${BTC_ADDRESS}","rate_type"`);
      await refused(duplicateAddress, 400, 'bad_request');
    });

    it('a body that is not JSON: 415', async () => {
      await refused('coin_from=BTC', 415, 'unsupported_media_type', { headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    });
  });

  describe('422: valid but not servable', () => {
    it('amount below the minimum or above the maximum carries the pair limits as numbers', async () => {
      const limits = oracle({ from: 'BTC', to: 'ETH', markupBps: MARKUP_BPS });
      for (const amount of [0.0001, 11]) {
        const before = await stored();
        const res = await post({ ...BTC_ETH, amount_from: amount });
        const error = assertError(res, 422, 'amount_out_of_range', ['min_amount', 'max_amount', 'min_amount_to', 'max_amount_to']);
        assert.match(error.detail, amount < 1 ? /below the minimum/ : /above the maximum/);
        assert.equal(typeof error.min_amount, 'number');
        assert.equal(typeof error.max_amount, 'number');
        assert.equal(rawNumber(res.body, 'min_amount'), limits.minAmount.toFixed());
        assert.equal(rawNumber(res.body, 'max_amount'), limits.maxAmount.toFixed());
        assert.deepEqual(await stored(), before);
      }
      // Just inside the limits is accepted.
      const ok = await post({ ...BTC_ETH, amount_from: limits.minAmount.toNumber() });
      assert.equal(ok.statusCode, 201, ok.body);
      await refused(
        JSON.stringify({ ...BTC_ETH, amount_from: 7 }).replace('"amount_from":7', `"amount_from":${limits.minAmount.minus('0.00000001').toFixed()}`),
        422,
        'amount_out_of_range',
        { extraKeys: ['min_amount', 'max_amount', 'min_amount_to', 'max_amount_to'] },
      );
    });

    it('the same currency on both sides', async () => {
      await refused({ ...BTC_ETH, coin_to: 'BTC', network_to: 'BTC', recipient_address: BTC_ADDRESS }, 422, 'pair_unavailable');
    });

    /** Runs `check` with the currency changed through the operator API, then restores it. */
    const withCurrency = async (key: string, change: Record<string, boolean>, check: () => Promise<void>): Promise<void> => {
      const id = ids.get(key);
      assert.ok(id !== undefined, key);
      const res = await t.admin('PATCH', `/admin/v1/currencies/${id}`, change);
      assert.equal(res.statusCode, 200, res.body);
      try {
        await check();
      } finally {
        const restore = Object.fromEntries(Object.keys(change).map((field) => [field, true]));
        const back = await t.admin('PATCH', `/admin/v1/currencies/${id}`, restore);
        assert.equal(back.statusCode, 200, back.body);
      }
    };

    it('an inactive currency, on either side', async () => {
      await withCurrency('ETH/ETH', { is_active: false }, async () => {
        await refused(BTC_ETH, 422, 'pair_unavailable', { detail: /not active/ });
        await refused(
          { ...BTC_ETH, coin_from: 'ETH', network_from: 'ETH', coin_to: 'BTC', network_to: 'BTC', recipient_address: BTC_ADDRESS },
          422,
          'pair_unavailable',
          { detail: /not active/ },
        );
      });
      assert.equal((await post(BTC_ETH)).statusCode, 201, 'active again');
    });

    it('deposits disabled on the source', async () => {
      await withCurrency('BTC/BTC', { is_deposit_enabled: false }, async () => {
        await refused(BTC_ETH, 422, 'pair_unavailable', { detail: /deposits/ });
        // BTC can still be the destination.
        const reverse = await post({ ...BTC_ETH, coin_from: 'ETH', network_from: 'ETH', coin_to: 'BTC', network_to: 'BTC', recipient_address: BTC_ADDRESS });
        assert.equal(reverse.statusCode, 201, reverse.body);
      });
    });

    it('withdrawals disabled on the destination', async () => {
      await withCurrency('ETH/ETH', { is_withdraw_enabled: false }, async () => {
        await refused(BTC_ETH, 422, 'pair_unavailable', { detail: /withdrawals/ });
        // ETH can still be the source.
        const reverse = await post({ ...BTC_ETH, coin_from: 'ETH', network_from: 'ETH', coin_to: 'BTC', network_to: 'BTC', recipient_address: BTC_ADDRESS });
        assert.equal(reverse.statusCode, 201, reverse.body);
      });
    });

    it('an exhausted deposit address pool (SOL): 422, counted in /metrics', async () => {
      const solToBtc = { ...BTC_ETH, coin_from: 'SOL', network_from: 'SOL', coin_to: 'BTC', network_to: 'BTC', amount_from: 1, recipient_address: BTC_ADDRESS };
      const metric = async (): Promise<number> => {
        const res = await t.app.inject({ method: 'GET', url: '/metrics' });
        assert.equal(res.statusCode, 200);
        const match = /^deposit_address_pool_exhausted_total\{chain="SOL"\} (\d+)$/m.exec(res.body);
        return match?.[1] === undefined ? 0 : Number(match[1]);
      };
      // Another partner's order takes a pool address (this partner's own would count against its
      // pool share, docs/contract.md §10.3, which test/orders/pool-drain.test.ts tests); then the free rest
      // is removed.
      const { apiKey: otherKey } = await t.createPartner({ rate_limit_per_minute: 100_000 });
      const first = await post(solToBtc, { authorization: `Bearer ${otherKey}` });
      assert.equal(first.statusCode, 201, first.body);
      await t.db.handle.db.deleteFrom('deposit_addresses').where('chain', '=', 'SOL').where('order_id', 'is', null).execute();
      const metricBefore = await metric();
      await refused(solToBtc, 422, 'unprocessable', { detail: /no deposit address is available/ });
      assert.equal(await metric(), metricBefore + 2, 'both refusals (plain and keyed) were counted');
      // Other chains are unaffected.
      assert.equal((await post(BTC_ETH)).statusCode, 201);
      // An address loaded again is used.
      await t.db.handle.db
        .insertInto('deposit_addresses')
        .values({ chain: 'SOL', address: '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV', strategy: 'pool', derivation_index: null, order_id: null, assigned_at: null })
        .execute();
      const again = await post(solToBtc);
      assert.equal(again.statusCode, 201, again.body);
      assert.equal(again.json<{ deposit_address: string }>().deposit_address, '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV');
      await refused(solToBtc, 422, 'unprocessable');
    });
  });

  it('the refusals above left no half-made order behind', async () => {
    const db = t.db.handle.db;
    // Every stored order has exactly one creation event and one deposit address.
    const orders = await db.selectFrom('orders').select('id').execute();
    const events = await db.selectFrom('order_events').select('order_id').execute();
    const addresses = await db.selectFrom('deposit_addresses').select('order_id').where('order_id', 'is not', null).execute();
    assert.deepEqual(events.map((e) => e.order_id).sort(), orders.map((o) => o.id).sort());
    assert.deepEqual(addresses.map((a) => a.order_id).sort(), orders.map((o) => o.id).sort());
    assert.equal(Number((await db.selectFrom('idempotency_keys').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n), 0);
    assert.ok(new Decimal(orders.length).gt(0));
  });
});
