// test-direct: postgres
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { validateAddress, validateMemo } from '../../src/domain/addresses/index.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * Many orders at once (docs/contract.md §5): indexes and tags come from per-chain sequences, pool rows are
 * claimed with SKIP LOCKED, and the unique index on (chain, address, tag) is the last word, so
 * concurrent creates never share a deposit address, id or short id. On both engines.
 */

const ETH_ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const BTC_ADDRESS = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';

const BTC_ETH = {
  coin_from: 'BTC',
  network_from: 'BTC',
  coin_to: 'ETH',
  network_to: 'ETH',
  amount_from: 0.1,
  rate_type: 'float',
  recipient_address: ETH_ADDRESS,
};

type Order = { id: string; short_id: string; deposit_address: string; deposit_address_tag: string | null; status: string };

describe('POST /partner/orders: concurrency', () => {
  let t: TestApp;
  let apiKey: string;
  before(async () => {
    t = await buildTestApp({ env: { WORKER: 'off' } });
    // Hundreds of open orders from one partner: above the default open-order cap on purpose.
    ({ apiKey } = await t.createPartner({ rate_limit_per_minute: 1_000_000, max_open_orders: 1_000_000 }));
  });
  after(() => t.close());

  const post = (body: object): Promise<LightMyRequestResponse> =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });

  const burst = async (n: number, body: object): Promise<Order[]> => {
    const responses = await Promise.all(Array.from({ length: n }, () => post(body)));
    const failures = responses.filter((res) => res.statusCode !== 201);
    assert.deepEqual(
      failures.map((res) => `${res.statusCode} ${res.body}`),
      [],
      `${failures.length} of ${n} concurrent creates failed`,
    );
    return responses.map((res) => res.json<Order>());
  };

  const distinct = (values: readonly unknown[]): number => new Set(values).size;

  it('200 concurrent BTC-source creates: all 201, unique ids, short ids and deposit addresses', async () => {
    const orders = await burst(200, BTC_ETH);
    assert.equal(distinct(orders.map((o) => o.id)), 200);
    assert.equal(distinct(orders.map((o) => o.short_id)), 200);
    assert.equal(distinct(orders.map((o) => o.deposit_address)), 200);
    for (const order of orders) {
      assert.equal(order.status, 'waiting_deposit');
      assert.match(order.short_id, /^EX-[A-Z0-9]{6}$/);
      assert.deepEqual(validateAddress('bitcoin', order.deposit_address), { ok: true }, order.deposit_address);
      assert.equal(order.deposit_address_tag, null);
    }

    const db = t.db.handle.db;
    const rows = await db.selectFrom('deposit_addresses').selectAll().where('chain', '=', 'BTC').execute();
    assert.equal(rows.length, 200);
    assert.equal(distinct(rows.map((row) => `${row.chain}|${row.address}|${row.tag}`)), 200);
    assert.equal(distinct(rows.map((row) => row.derivation_index)), 200);
    assert.deepEqual(new Set(rows.map((row) => row.order_id)), new Set(orders.map((o) => o.id)));
    // Each row is the address its order shows.
    const byOrder = new Map(rows.map((row) => [row.order_id, row.address]));
    for (const order of orders) assert.equal(byOrder.get(order.id), order.deposit_address);

    const stored = await db.selectFrom('orders').select(['id', 'short_id', 'deposit_address']).execute();
    assert.equal(stored.length, 200);
    const events = await db.selectFrom('order_events').select('order_id').execute();
    assert.equal(events.length, 200);
    assert.equal(distinct(events.map((e) => e.order_id)), 200);
  });

  it('50 concurrent XRP-source creates: one shared address, 50 distinct tags', async () => {
    const orders = await burst(50, { ...BTC_ETH, coin_from: 'XRP', network_from: 'XRP', coin_to: 'BTC', network_to: 'BTC', amount_from: 100, recipient_address: BTC_ADDRESS });
    assert.equal(distinct(orders.map((o) => o.deposit_address)), 1);
    assert.deepEqual(validateAddress('xrp', orders[0]?.deposit_address ?? ''), { ok: true });
    const tags = orders.map((o) => o.deposit_address_tag);
    assert.equal(distinct(tags), 50);
    for (const tag of tags) {
      assert.ok(tag !== null);
      assert.deepEqual(validateMemo('xrp', tag), { ok: true }, tag);
    }
    const rows = await t.db.handle.db.selectFrom('deposit_addresses').selectAll().where('chain', '=', 'XRP').execute();
    assert.equal(rows.length, 50);
    assert.equal(distinct(rows.map((row) => `${row.chain}|${row.address}|${row.tag}`)), 50);
  });

  it('50 concurrent SOL-source creates: 50 distinct pool addresses, each bound once', async () => {
    const db = t.db.handle.db;
    const freeBefore = (await db.selectFrom('deposit_addresses').select('id').where('chain', '=', 'SOL').where('order_id', 'is', null).execute()).length;
    const orders = await burst(50, { ...BTC_ETH, coin_from: 'SOL', network_from: 'SOL', coin_to: 'BTC', network_to: 'BTC', amount_from: 1, recipient_address: BTC_ADDRESS });
    assert.equal(distinct(orders.map((o) => o.deposit_address)), 50);
    const bound = await db.selectFrom('deposit_addresses').selectAll().where('chain', '=', 'SOL').where('order_id', 'is not', null).execute();
    assert.equal(bound.length, 50);
    assert.deepEqual(new Set(bound.map((row) => row.address)), new Set(orders.map((o) => o.deposit_address)));
    const freeAfter = (await db.selectFrom('deposit_addresses').select('id').where('chain', '=', 'SOL').where('order_id', 'is', null).execute()).length;
    assert.equal(freeAfter, freeBefore - 50);
  });

  it('a mixed burst across chains: every deposit (chain, address, tag) is unique', async () => {
    const bodies = [
      BTC_ETH,
      { ...BTC_ETH, coin_from: 'ETH', network_from: 'ETH', coin_to: 'BTC', network_to: 'BTC', recipient_address: BTC_ADDRESS },
      { ...BTC_ETH, coin_from: 'USDT', network_from: 'ERC20', amount_from: 100 },
      { ...BTC_ETH, coin_from: 'XRP', network_from: 'XRP', amount_from: 100 },
    ];
    const responses = await Promise.all(Array.from({ length: 60 }, (_, i) => post(bodies[i % bodies.length] ?? BTC_ETH)));
    for (const res of responses) assert.equal(res.statusCode, 201, res.body);
    // ETH and USDT (ERC20) share one chain: their deposit addresses never collide.
    const evm = responses.filter((_, i) => i % 4 === 1 || i % 4 === 2).map((res) => res.json<Order>().deposit_address.toLowerCase());
    assert.equal(distinct(evm), 30);
    const rows = await t.db.handle.db.selectFrom('deposit_addresses').select(['chain', 'address', 'tag']).where('order_id', 'is not', null).execute();
    assert.equal(distinct(rows.map((row) => `${row.chain}|${row.address.toLowerCase()}|${row.tag}`)), rows.length);
  });
});
