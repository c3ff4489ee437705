// test-direct: postgres
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';
import { assertError } from '../rates/rates-helpers.js';
import { IDEMPOTENCY_CLAIM_LEASE_MS, type IdempotencyKeys } from '../../src/services/idempotency.js';

/**
 * `Idempotency-Key` on POST /partner/orders (docs/contract.md §3): same key and same body replay the
 * original order (201, `Idempotent-Replayed: true`); same key, other body: 422; the same key
 * in flight: 409; keys are per partner; a refused request leaves its key unused.
 */

const ETH_ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';

const BTC_ETH = {
  coin_from: 'BTC',
  network_from: 'BTC',
  coin_to: 'ETH',
  network_to: 'ETH',
  amount_from: 0.1,
  rate_type: 'float',
  recipient_address: ETH_ADDRESS,
};

type Partner = { id: string; apiKey: string; keyId: string };
type Order = { id: string; short_id: string; deposit_address: string };

describe('POST /partner/orders: Idempotency-Key', () => {
  const clock = new ManualClock(new Date('2026-07-01T10:00:00.000Z'));
  let t: TestApp;
  let acme: Partner;
  let other: Partner;
  let keyCounter = 0;
  before(async () => {
    t = await buildTestApp({ clock, env: { WORKER: 'off', PRICE_POLL_SECONDS: '3600' } });
    acme = await t.createPartner({ rate_limit_per_minute: 100_000 });
    other = await t.createPartner({ rate_limit_per_minute: 100_000 });
  });
  after(() => t.close());

  const freshKey = (): string => `idem-${++keyCounter}-${Date.now()}`;

  const post = (partner: Partner, body: object | string, key?: string): Promise<LightMyRequestResponse> =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: {
        authorization: `Bearer ${partner.apiKey}`,
        'content-type': 'application/json',
        ...(key === undefined ? {} : { 'idempotency-key': key }),
      },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });

  const count = async (table: 'orders' | 'order_events' | 'idempotency_keys'): Promise<number> =>
    Number((await t.db.handle.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  const keyRow = (partner: Partner, key: string) =>
    t.db.handle.db.selectFrom('idempotency_keys').selectAll().where('partner_id', '=', partner.id).where('key', '=', key).executeTakeFirst();

  it('a first request with a key: 201 without the replay header, the key records the order', async () => {
    const key = freshKey();
    const res = await post(acme, BTC_ETH, key);
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.headers['idempotent-replayed'], undefined);
    const row = await keyRow(acme, key);
    assert.equal(row?.order_id, res.json<Order>().id);
    assert.deepEqual(row?.request_hash, createHash('sha256').update(JSON.stringify(BTC_ETH)).digest());
  });

  it('same key, same body: 201 with Idempotent-Replayed: true and the same order, nothing new stored', async () => {
    const key = freshKey();
    const first = await post(acme, BTC_ETH, key);
    assert.equal(first.statusCode, 201, first.body);
    const orders = await count('orders');
    const events = await count('order_events');

    for (let i = 0; i < 3; i++) {
      const again = await post(acme, BTC_ETH, key);
      assert.equal(again.statusCode, 201, again.body);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.json<Order>().id, first.json<Order>().id);
      assert.equal(again.body, first.body);
    }
    assert.equal(await count('orders'), orders);
    assert.equal(await count('order_events'), events);
  });

  it('same key, different body: 422, the original stays', async () => {
    const key = freshKey();
    const first = await post(acme, BTC_ETH, key);
    assert.equal(first.statusCode, 201, first.body);
    const orders = await count('orders');
    for (const body of [{ ...BTC_ETH, amount_from: 0.2 }, { ...BTC_ETH, rate_type: 'fixed' }]) {
      const error = assertError(await post(acme, body, key), 422, 'unprocessable');
      assert.match(error.detail, /Idempotency-Key/);
    }
    // Same JSON value, other bytes: the key covers the exact body.
    assertError(await post(acme, JSON.stringify(BTC_ETH, null, 2), key), 422, 'unprocessable');
    assert.equal(await count('orders'), orders);
    const replay = await post(acme, BTC_ETH, key);
    assert.equal(replay.statusCode, 201);
    assert.equal(replay.json<Order>().id, first.json<Order>().id);
  });

  it('the same key used by another partner is independent: both 201, different orders', async () => {
    const key = freshKey();
    const mine = await post(acme, BTC_ETH, key);
    const theirs = await post(other, BTC_ETH, key);
    assert.equal(mine.statusCode, 201, mine.body);
    assert.equal(theirs.statusCode, 201, theirs.body);
    assert.equal(theirs.headers['idempotent-replayed'], undefined);
    assert.notEqual(mine.json<Order>().id, theirs.json<Order>().id);
    // And each replays its own.
    assert.equal((await post(other, BTC_ETH, key)).json<Order>().id, theirs.json<Order>().id);
    assert.equal((await post(acme, BTC_ETH, key)).json<Order>().id, mine.json<Order>().id);
    // Another partner's body does not conflict with mine either.
    const otherBody = await post(other, { ...BTC_ETH, amount_from: 0.3 }, freshKey());
    assert.equal(otherBody.statusCode, 201, otherBody.body);
  });

  it('a request refused by validation stores nothing; the key then works with a corrected body', async () => {
    const refusals: Array<[object, number]> = [
      [{ ...BTC_ETH, amount_from: '1e-1' }, 400], // schema: a decimal string (v1.2) with an exponent
      [{ ...BTC_ETH, recipient_address: ETH_ADDRESS.toLowerCase().replace('0x9', '0xz') }, 400], // address
      [{ ...BTC_ETH, amount_from: 0.00001 }, 422], // limits, after the key was claimed
      [{ ...BTC_ETH, coin_to: 'XRP', network_to: 'XRP' }, 400], // address again
    ];
    for (const [body, status] of refusals) {
      const key = freshKey();
      const keys = await count('idempotency_keys');
      const orders = await count('orders');
      const res = await post(acme, body, key);
      assert.equal(res.statusCode, status, res.body);
      assert.equal(await keyRow(acme, key), undefined, 'the refused request left no key record');
      assert.equal(await count('idempotency_keys'), keys);
      assert.equal(await count('orders'), orders);

      const corrected = await post(acme, BTC_ETH, key);
      assert.equal(corrected.statusCode, 201, corrected.body);
      assert.equal(corrected.headers['idempotent-replayed'], undefined);
      assert.equal((await keyRow(acme, key))?.order_id, corrected.json<Order>().id);
    }
  });

  it('10 parallel requests with one key and body: exactly one order; every answer 201 (same order) or 409', async () => {
    const key = freshKey();
    const orders = await count('orders');
    const responses = await Promise.all(Array.from({ length: 10 }, () => post(acme, BTC_ETH, key)));
    const ids = new Set<string>();
    for (const res of responses) {
      assert.ok(res.statusCode === 201 || res.statusCode === 409, `${res.statusCode}: ${res.body}`);
      if (res.statusCode === 201) ids.add(res.json<Order>().id);
      else assertError(res, 409, 'conflict');
    }
    assert.equal(await count('orders'), orders + 1);
    assert.equal(ids.size, 1, 'every 201 carries the same order');
    const [orderId] = [...ids];
    assert.equal((await keyRow(acme, key))?.order_id, orderId);
    // Once settled, the key replays.
    const replay = await post(acme, BTC_ETH, key);
    assert.equal(replay.statusCode, 201);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.ok(ids.has(replay.json<Order>().id));
  });

  it('10 parallel requests with one key and different bodies: one order; the others 409 or 422', async () => {
    const key = freshKey();
    const orders = await count('orders');
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => post(acme, { ...BTC_ETH, amount_from: Number(`0.1${i}`) }, key)),
    );
    const statuses = responses.map((res) => res.statusCode);
    assert.equal(statuses.filter((s) => s === 201).length, 1, statuses.join(','));
    assert.ok(statuses.every((s) => s === 201 || s === 409 || s === 422), statuses.join(','));
    assert.equal(await count('orders'), orders + 1);
  });

  describe('a record still in flight', () => {
    const body = JSON.stringify(BTC_ETH);
    const inFlight = async (partner: Partner, key: string, ageMs: number): Promise<void> => {
      await t.db.handle.db
        .insertInto('idempotency_keys')
        .values({
          partner_id: partner.id,
          key,
          request_hash: createHash('sha256').update(body).digest(),
          order_id: null,
          created_at: new Date(clock.now().getTime() - ageMs),
        })
        .execute();
    };

    it('same key and body: 409 with Retry-After (the seconds left of its lease), nothing stored, the record kept', async () => {
      const key = freshKey();
      await inFlight(acme, key, 0);
      const orders = await count('orders');
      for (let i = 0; i < 2; i++) {
        const res = await post(acme, body, key);
        assertError(res, 409, 'conflict');
        assert.equal(res.headers['retry-after'], String(IDEMPOTENCY_CLAIM_LEASE_MS / 1000), 'a fresh claim: the whole lease');
      }
      assert.equal(await count('orders'), orders);
      const row = await keyRow(acme, key);
      assert.ok(row !== undefined);
      assert.equal(row.order_id, null);
    });

    it('the claim lease is shorter than a client\'s request timeout (the SDK gives up after 30 s)', () => {
      assert.ok(IDEMPOTENCY_CLAIM_LEASE_MS <= 15_000, `${IDEMPOTENCY_CLAIM_LEASE_MS} ms`);
    });

    it('at the end of its lease it is still in flight: 409, Retry-After counts down, never 0', async () => {
      const key = freshKey();
      await inFlight(acme, key, IDEMPOTENCY_CLAIM_LEASE_MS - 4_500);
      const res = await post(acme, body, key);
      assertError(res, 409, 'conflict');
      assert.equal(res.headers['retry-after'], '5');
      const last = freshKey();
      await inFlight(acme, last, IDEMPOTENCY_CLAIM_LEASE_MS);
      const atEnd = await post(acme, body, last);
      assertError(atEnd, 409, 'conflict');
      assert.equal(atEnd.headers['retry-after'], '1');
    });

    it('older than its lease it is taken to have died: the request proceeds (201) and completes the key', async () => {
      const key = freshKey();
      await inFlight(acme, key, IDEMPOTENCY_CLAIM_LEASE_MS + 1);
      const res = await post(acme, body, key);
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.headers['idempotent-replayed'], undefined);
      const row = await keyRow(acme, key);
      assert.equal(row?.order_id, res.json<Order>().id);
      assert.equal(row?.created_at.getTime(), clock.now().getTime());
      const replay = await post(acme, body, key);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.json<Order>().id, res.json<Order>().id);
    });

    it('a first request that outlives its lease and completes after the retry took over makes no second order: the retry replays it', async () => {
      const key = freshKey();
      await inFlight(acme, key, IDEMPOTENCY_CLAIM_LEASE_MS + 1);
      // The first request (still alive, only slow) completes the key with its order right after
      // the retry took the claim over, before the retry writes its own order.
      const first = await post(acme, { ...BTC_ETH, amount_from: 0.3 }, freshKey());
      assert.equal(first.statusCode, 201, first.body);
      const idempotency = (t.runtime.orders as unknown as { idempotency: IdempotencyKeys }).idempotency;
      const claim = idempotency.claim.bind(idempotency);
      idempotency.claim = async (...args) => {
        idempotency.claim = claim;
        const taken = await claim(...args);
        await t.db.handle.db.updateTable('idempotency_keys').set({ order_id: first.json<Order>().id }).where('partner_id', '=', acme.id).where('key', '=', key).execute();
        return taken;
      };
      const orders = await count('orders');
      const retry = await post(acme, body, key);
      assert.equal(retry.statusCode, 201, retry.body);
      assert.equal(retry.headers['idempotent-replayed'], 'true');
      assert.equal(retry.json<Order>().id, first.json<Order>().id);
      assert.equal(await count('orders'), orders, 'the retry wrote no order of its own');
      assert.equal((await keyRow(acme, key))?.order_id, first.json<Order>().id);
    });

    it('a completed key is never pointed at another order (the database refuses it)', async () => {
      const key = freshKey();
      const a = await post(acme, BTC_ETH, key);
      const b = await post(acme, BTC_ETH, freshKey());
      await assert.rejects(
        t.db.handle.db.updateTable('idempotency_keys').set({ order_id: b.json<Order>().id }).where('partner_id', '=', acme.id).where('key', '=', key).execute(),
        /idempotency_key_completed/,
      );
      assert.equal((await keyRow(acme, key))?.order_id, a.json<Order>().id);
    });

    it('another body on an in-flight key: 422', async () => {
      const key = freshKey();
      await inFlight(acme, key, 0);
      assertError(await post(acme, { ...BTC_ETH, amount_from: 0.5 }, key), 422, 'unprocessable');
    });
  });

  it('keys are kept 24 hours: a replay within, a new order after', async () => {
    const key = freshKey();
    const first = await post(acme, BTC_ETH, key);
    assert.equal(first.statusCode, 201, first.body);
    const refreshPrices = async () => assert.equal((await t.admin('PUT', '/admin/v1/prices/BTC', { price_usd: '67000' })).statusCode, 200);

    clock.advance(24 * 60 * 60 * 1000 - 1);
    await refreshPrices();
    const within = await post(acme, BTC_ETH, key);
    assert.equal(within.statusCode, 201, within.body);
    assert.equal(within.headers['idempotent-replayed'], 'true');
    assert.equal(within.json<Order>().id, first.json<Order>().id);

    clock.advance(2);
    await refreshPrices();
    const later = await post(acme, BTC_ETH, key);
    assert.equal(later.statusCode, 201, later.body);
    assert.equal(later.headers['idempotent-replayed'], undefined);
    assert.notEqual(later.json<Order>().id, first.json<Order>().id);
    assert.equal((await keyRow(acme, key))?.order_id, later.json<Order>().id);
  });

  it('an invalid Idempotency-Key header: 400, nothing stored', async () => {
    const orders = await count('orders');
    for (const key of ['with space', 'x'.repeat(256), 'tab\there']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/partner/orders',
        headers: { authorization: `Bearer ${acme.apiKey}`, 'content-type': 'application/json', 'idempotency-key': key },
        payload: JSON.stringify(BTC_ETH),
      });
      assertError(res, 400, 'bad_request');
    }
    assert.equal(await count('orders'), orders);
  });
});
