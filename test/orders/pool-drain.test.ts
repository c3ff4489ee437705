import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';

const ETH_ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';

/** A float SOL → ETH order of `amount` made with `apiKey` (each takes a SOL pool address). */
function postSolOrder(t: TestApp, apiKey: string, amount: string): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/partner/orders',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    payload: `{"coin_from":"SOL","network_from":"SOL","coin_to":"ETH","network_to":"ETH","amount_from":${amount},"rate_type":"float","recipient_address":"${ETH_ADDRESS}"}`,
  });
}
const CAP = 5;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * Pool drain (issue 12): one partner key could take every address of a pool chain (SOL) by
 * creating orders it never pays, and a pool address stayed bound to its order forever. Now a
 * partner's open orders awaiting a deposit are capped (MAX_OPEN_ORDERS_PER_PARTNER, or the
 * partner's own max_open_orders), and a pool address whose order ended with no deposit returns
 * to the pool once the late-deposit watch (24 h after expiry) is over.
 */
describe('pool drain: open orders capped per partner, ended orders give their pool address back', () => {
  const clock = new ManualClock(new Date('2026-05-01T10:00:00.000Z'));
  let t: TestApp;
  let attacker: { id: string; apiKey: string };
  let attackerKeys: string[];
  let victim: { id: string; apiKey: string };
  let amount: string;
  before(async () => {
    t = await buildTestApp({ clock, env: { WORKER: 'off', PRICE_POLL_SECONDS: '3600', PRICE_MAX_AGE_SECONDS: '86400', MAX_OPEN_ORDERS_PER_PARTNER: String(CAP) } });
    attacker = await t.createPartner({ name: 'Attacker' });
    // More keys give no more orders: the cap is the partner's.
    attackerKeys = [attacker.apiKey];
    for (let i = 0; i < 2; i++) {
      const key = await t.admin('POST', `/admin/v1/partners/${attacker.id}/keys`);
      assert.equal(key.statusCode, 201, key.body);
      attackerKeys.push(key.json<{ api_key: string }>().api_key);
    }
    victim = await t.createPartner({ name: 'Victim' });
    const rates = await t.app.inject({ method: 'GET', url: '/api/v1/partner/rates?coin_from=SOL&coin_to=ETH' });
    assert.equal(rates.statusCode, 200, rates.body);
    amount = String(Number(rates.json<{ min_amount: number }>().min_amount) * 2);
  });
  after(() => t.close());

  const solOrder = (apiKey: string): Promise<LightMyRequestResponse> => postSolOrder(t, apiKey, amount);
  const pool = async (): Promise<{ available: number; assigned: number }> => {
    const res = await t.admin('GET', '/admin/v1/address-pools/SOL');
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ available: number; assigned: number }>();
  };
  const statuses = (responses: LightMyRequestResponse[]) => responses.map((res) => res.statusCode).sort();

  it('an attacker firing orders from all its keys at once gets the cap and no more; the pool loses only that', async () => {
    const before = await pool();
    const burst = await Promise.all(Array.from({ length: 24 }, (_, i) => solOrder(attackerKeys[i % attackerKeys.length] ?? '')));
    assert.deepEqual(statuses(burst), [...Array<number>(CAP).fill(201), ...Array<number>(24 - CAP).fill(422)]);
    for (const res of burst.filter((r) => r.statusCode === 422)) {
      const body = res.json<{ detail: string; code: string }>();
      assert.equal(body.code, 'open_orders_limit');
      assert.match(body.detail, new RegExp(`${CAP} are awaiting a deposit and this account may have ${CAP} at once`));
    }
    const after = await pool();
    assert.equal(after.available, before.available - CAP);
    assert.equal(after.assigned, before.assigned + CAP);
  });

  it('another partner is unaffected: its orders are taken, up to its own cap', async () => {
    for (let i = 0; i < CAP; i++) assert.equal((await solOrder(victim.apiKey)).statusCode, 201);
    assert.equal((await solOrder(victim.apiKey)).json<{ code: string }>().code, 'open_orders_limit');
  });

  it("the operator's per-partner setting overrides the default; null restores it", async () => {
    const raised = await t.admin('PATCH', `/admin/v1/partners/${victim.id}`, { max_open_orders: CAP + 2 });
    assert.equal(raised.statusCode, 200, raised.body);
    assert.equal(raised.json<{ max_open_orders: number | null }>().max_open_orders, CAP + 2);
    assert.equal((await solOrder(victim.apiKey)).statusCode, 201);
    assert.equal((await solOrder(victim.apiKey)).statusCode, 201);
    assert.equal((await solOrder(victim.apiKey)).statusCode, 422);
    const reset = await t.admin('PATCH', `/admin/v1/partners/${victim.id}`, { max_open_orders: null });
    assert.equal(reset.json<{ max_open_orders: number | null }>().max_open_orders, null);
    assert.equal((await t.admin('PATCH', `/admin/v1/partners/${victim.id}`, { max_open_orders: 0 })).statusCode, 400);
  });

  it('expired orders free the cap at once, and their pool addresses after the late-deposit watch', async () => {
    // One of the victim's orders is paid: its address must never go back.
    const { id: paidId } = await t.db.handle.db
      .selectFrom('orders')
      .select('id')
      .where('partner_id', '=', victim.id)
      .where('status', '=', 'waiting_deposit')
      .orderBy('created_at')
      .limit(1)
      .executeTakeFirstOrThrow();
    const deposit = await t.admin('POST', `/admin/v1/simulator/orders/${paidId}/deposit`, {});
    assert.equal(deposit.statusCode, 200, deposit.body);
    await t.runtime.worker.tick();

    clock.advance(31 * MINUTE);
    await t.runtime.worker.tick();
    const pooled = await pool();
    // The cap counts orders awaiting a deposit: expired ones no longer count.
    const again = await solOrder(attacker.apiKey);
    assert.equal(again.statusCode, 201, again.body);
    const reused = again.json<{ deposit_address: string }>().deposit_address;
    assert.equal((await pool()).available, pooled.available - 1);

    // 24 h after expiry the late-deposit watch ends: the 11 unpaid expired orders' addresses return.
    clock.advance(24 * HOUR);
    await t.runtime.worker.tick();
    const released = await pool();
    assert.equal(released.available, pooled.available - 1 + 2 * CAP + 2 - 1);
    const metrics = await t.operator({ method: 'GET', url: '/metrics' });
    assert.match(metrics.body, new RegExp(`^deposit_address_pool_released_total\\{chain="SOL"\\} ${2 * CAP + 1}$`, 'm'));
    // The paid order keeps its address; the order made after expiry too (still open).
    const paidOrder = await t.admin('GET', `/admin/v1/orders/${paidId}`);
    const paidAddress = paidOrder.json<{ deposit_address: string }>().deposit_address;
    const rows = await t.db.handle.db.selectFrom('deposit_addresses').select(['address', 'order_id']).where('chain', '=', 'SOL').execute();
    assert.equal(rows.find((row) => row.address === paidAddress)?.order_id, paidId);
    assert.ok(rows.find((row) => row.address === reused)?.order_id !== null);
    // Nothing more to release on the next passes.
    clock.advance(2 * MINUTE);
    await t.runtime.worker.tick();
    assert.equal((await pool()).available, released.available);
  });
});

/**
 * Pool drain through cancel (issue 26.5): a cancelled order stopped counting toward the
 * open-order cap at once but kept its pool address for the 24 h late-deposit watch, so ten
 * create-and-cancel rounds emptied a 10-address pool and another partner's order got 422. A
 * partner now holds at most POOL_SHARE_PCT (20 %) of a pool at once, open or ended and unpaid.
 */
describe('pool share: one partner holds at most POOL_SHARE_PCT of a pool, cancelled orders included', () => {
  const clock = new ManualClock(new Date('2026-05-01T10:00:00.000Z'));
  const POOL = 10;
  const SHARE = 2; // 20 % of 10
  let t: TestApp;
  let attacker: { id: string; apiKey: string };
  let others: Array<{ id: string; apiKey: string }>;
  let amount: string;
  before(async () => {
    t = await buildTestApp({ clock, env: { WORKER: 'off', PRICE_POLL_SECONDS: '3600', PRICE_MAX_AGE_SECONDS: '86400' } });
    // The demo pool, cut to its 10 oldest addresses.
    const db = t.db.handle.db;
    const keep = await db.selectFrom('deposit_addresses').select('id').where('chain', '=', 'SOL').orderBy('created_at').orderBy('id').limit(POOL).execute();
    await db.deleteFrom('deposit_addresses').where('chain', '=', 'SOL').where('id', 'not in', keep.map((row) => row.id)).execute();
    attacker = await t.createPartner({ name: 'Canceller' });
    others = [];
    for (let i = 0; i < 4; i++) others.push(await t.createPartner({ name: `Honest ${i}` }));
    const rates = await t.app.inject({ method: 'GET', url: '/api/v1/partner/rates?coin_from=SOL&coin_to=ETH' });
    amount = String(Number(rates.json<{ min_amount: number }>().min_amount) * 2);
  });
  after(() => t.close());

  const solOrder = (apiKey: string): Promise<LightMyRequestResponse> => postSolOrder(t, apiKey, amount);
  const cancel = (apiKey: string, id: string) =>
    t.app.inject({ method: 'POST', url: `/api/v1/partner/orders/${id}/cancel`, headers: { authorization: `Bearer ${apiKey}` } });
  const available = async () => (await t.admin('GET', '/admin/v1/address-pools/SOL')).json<{ available: number }>().available;

  it('create-and-cancel rounds stop at the share: the cancelled orders still hold their addresses', async () => {
    assert.equal(await available(), POOL);
    const statuses: number[] = [];
    let refusal = '';
    for (let round = 0; round < 10; round++) {
      const res = await solOrder(attacker.apiKey);
      statuses.push(res.statusCode);
      if (res.statusCode !== 201) {
        refusal = res.body;
        continue;
      }
      const cancelled = await cancel(attacker.apiKey, res.json<{ id: string }>().id);
      assert.equal(cancelled.statusCode, 200, cancelled.body);
    }
    assert.deepEqual(statuses, [...Array<number>(SHARE).fill(201), ...Array<number>(10 - SHARE).fill(422)]);
    const body = JSON.parse(refusal) as { code: string; detail: string };
    assert.equal(body.code, 'unprocessable');
    assert.match(body.detail, /holds 2 of the 10 SOL deposit addresses, the most one partner may hold at once \(20 %\)/);
    assert.equal(await available(), POOL - SHARE);
    const metrics = await t.operator({ method: 'GET', url: '/metrics' });
    assert.match(metrics.body, /^deposit_address_pool_share_refused_total\{chain="SOL"\} 8$/m);
  });

  it("the others' orders still find addresses: each gets its own share, all at once", async () => {
    const burst = await Promise.all(others.flatMap((partner) => Array.from({ length: SHARE + 2 }, () => solOrder(partner.apiKey))));
    // Each partner got exactly its share, the pool is now exactly full, and nobody got another's.
    assert.equal(burst.filter((res) => res.statusCode === 201).length, others.length * SHARE);
    assert.equal(await available(), 0);
    const held = await t.db.handle.db
      .selectFrom('deposit_addresses as d')
      .innerJoin('orders as o', 'o.id', 'd.order_id')
      .select(['o.partner_id'])
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('d.chain', '=', 'SOL')
      .groupBy('o.partner_id')
      .execute();
    assert.ok(held.every((row) => Number(row.n) === SHARE), JSON.stringify(held));
  });

  it('a paid order keeps its address but no longer counts against the share; ended unpaid ones count until the watch ends', async () => {
    const partner = others[0]!;
    const { id: paidId } = await t.db.handle.db
      .selectFrom('orders')
      .select('id')
      .where('partner_id', '=', partner.id)
      .where('status', '=', 'waiting_deposit')
      .limit(1)
      .executeTakeFirstOrThrow();
    assert.equal((await t.admin('POST', `/admin/v1/simulator/orders/${paidId}/deposit`, {})).statusCode, 200);
    await t.runtime.worker.tick();
    // Its share has room again, but the pool is empty: the 422 is the pool's own.
    const full = await solOrder(partner.apiKey);
    assert.equal(full.statusCode, 422);
    assert.match(full.json<{ detail: string }>().detail, /no deposit address is available/);
    // 24 h after expiry the attacker's cancelled orders give their addresses back, and its share with them.
    clock.advance(31 * MINUTE + 24 * HOUR);
    await t.runtime.worker.tick();
    assert.ok((await available()) >= 2 * SHARE);
    await t.runtime.prices.refresh();
    const again = await solOrder(attacker.apiKey);
    assert.equal(again.statusCode, 201, again.body);
  });
});
