import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';

const ETH_ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
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

  const solOrder = (apiKey: string): Promise<LightMyRequestResponse> =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      payload: `{"coin_from":"SOL","network_from":"SOL","coin_to":"ETH","network_to":"ETH","amount_from":${amount},"rate_type":"float","recipient_address":"${ETH_ADDRESS}"}`,
    });
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
