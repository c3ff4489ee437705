import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { findPartner } from '../../src/db/repositories/partners-repository.js';
import { Decimal } from '../../src/domain/money.js';
import {
  advance,
  assertDecimalEq,
  BTC_CONFIRMATIONS,
  BTC_REFUND,
  createOrder,
  exactJson,
  fixedQuote,
  getOrder,
  moves,
  payoutRows,
  setConfirmations,
  simulateDeposit,
  startHarness,
  storedOrder,
  tickUntil,
  type Harness,
  type OrderJson,
  shortFixedOrder,
} from './lifecycle-helpers.js';
import { ManualClock } from '../helpers/test-app.js';

/**
 * Order actions (docs/contract.md §7.5, issue 14) end to end: partner routes, the simulator, worker passes
 * and a manual clock. Each test leaves its order in a final state.
 */

/** Another valid BTC address (BIP-173 P2WSH test vector) to change a refund address to. */
const BTC_REFUND_2 = 'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3';

type Action = 'cancel' | 'continue' | 'refund';

async function act(h: Harness, id: string, action: Action, apiKey = h.partner.apiKey): Promise<LightMyRequestResponse> {
  return h.t.app.inject({ method: 'POST', url: `/api/v1/partner/orders/${id}/${action}`, headers: { 'x-api-key': apiKey } });
}

async function setRefundAddress(h: Harness, id: string, body: Record<string, unknown>): Promise<LightMyRequestResponse> {
  return h.t.app.inject({
    method: 'PUT',
    url: `/api/v1/partner/orders/${id}/refund-address`,
    headers: { 'x-api-key': h.partner.apiKey, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
}

function ok(res: LightMyRequestResponse): OrderJson {
  assert.equal(res.statusCode, 200, res.body);
  return exactJson<OrderJson>(res);
}

function conflict(res: LightMyRequestResponse): void {
  assert.equal(res.statusCode, 409, res.body);
  assert.equal(res.json<{ code: string }>().code, 'conflict');
}

async function events(h: Harness, id: string) {
  return h.t.db.handle.db
    .selectFrom('order_events')
    .select(['from_status', 'to_status', 'reason', 'actor', 'order_version'])
    .where('order_id', '=', id)
    .orderBy('order_version')
    .execute();
}

describe('order actions (docs/contract.md §7.5)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({}, new ManualClock());
  });
  after(() => h.t.close());

  /** Deposit, confirmations reached, then the pass that runs the exchange step. */
  async function depositAndExchange(order: OrderJson, amount?: string): Promise<OrderJson> {
    await simulateDeposit(h, order.id, amount === undefined ? {} : { amount });
    await h.t.runtime.worker.tick();
    await setConfirmations(h, order.id, BTC_CONFIRMATIONS);
    await h.t.runtime.worker.tick();
    return getOrder(h, order.id);
  }

  describe('cancel', () => {
    it('waiting for a deposit: cancel → expired (cancelled), one audit row by the partner; a second cancel is 409', async () => {
      const order = await createOrder(h);
      assert.deepEqual(order.actions, ['cancel', 'set_refund_address']);
      const cancelled = ok(await act(h, order.short_id.toLowerCase(), 'cancel'));
      assert.equal(cancelled.status, 'expired');
      assert.equal(cancelled.status_reason, 'cancelled');
      assert.deepEqual(cancelled.actions, []);
      assert.deepEqual(await getOrder(h, order.id), cancelled, 'the action answers the Order as GET does');
      conflict(await act(h, order.id, 'cancel'));
      const trail = await events(h, order.id);
      assert.deepEqual(
        trail.map((e) => [e.from_status, e.to_status, e.reason, e.actor]),
        [
          [null, 'waiting_deposit', 'created', 'partner'],
          ['waiting_deposit', 'expired', 'cancelled', 'partner'],
        ],
      );
    });

    it('a deposit after a cancel is a late deposit: refunded to the refund address', async () => {
      const order = await createOrder(h);
      ok(await act(h, order.id, 'cancel'));
      await simulateDeposit(h, order.id);
      await h.t.runtime.worker.tick();
      await tickUntil(h, order.id, 'refunded', 2);
      const [refund] = await payoutRows(h, order.id);
      assert.equal(refund?.kind, 'refund');
      assert.equal(refund?.address, BTC_REFUND);
    });

    it('once a deposit is seen, cancel is not offered and is 409; another partner\'s order is 404; an action not offered is 409', async () => {
      const order = await createOrder(h);
      const stranger = await h.t.createPartner();
      assert.equal((await act(h, order.id, 'cancel', stranger.apiKey)).statusCode, 404);
      conflict(await act(h, order.id, 'continue'));
      conflict(await act(h, order.id, 'refund'));
      await simulateDeposit(h, order.id);
      await h.t.runtime.worker.tick();
      const confirming = await getOrder(h, order.id);
      assert.equal(confirming.status, 'confirming');
      assert.deepEqual(confirming.actions, ['set_refund_address']);
      conflict(await act(h, order.id, 'cancel'));
      await setConfirmations(h, order.id, BTC_CONFIRMATIONS);
      await tickUntil(h, order.id, 'completed');
      assert.deepEqual((await getOrder(h, order.id)).actions, []);
    });

    it('past expires_at (reads expired before the sweep) cancel is 409', async () => {
      const order = await createOrder(h);
      await advance(h, 30 * 60 * 1000);
      conflict(await act(h, order.id, 'cancel'));
      await h.t.runtime.worker.tick();
      assert.equal((await getOrder(h, order.id)).status, 'expired');
    });
  });

  describe('set refund address', () => {
    it('checked as at creation (400), set and changed while waiting, recorded in the audit trail', async () => {
      const order = await createOrder(h, { refund_address: null });
      assert.equal((await setRefundAddress(h, order.id, { refund_address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' })).statusCode, 400);
      assert.equal((await setRefundAddress(h, order.id, { refund_address: BTC_REFUND, refund_address_tag: '5' })).statusCode, 400);
      assert.equal((await setRefundAddress(h, order.id, {})).statusCode, 400);
      ok(await setRefundAddress(h, order.id, { refund_address: BTC_REFUND }));
      ok(await setRefundAddress(h, order.id, { refund_address: BTC_REFUND_2, refund_address_tag: null }));
      assert.equal((await storedOrder(h, order.id)).refund_address, BTC_REFUND_2);
      const trail = await events(h, order.id);
      assert.deepEqual(trail.slice(1).map((e) => [e.from_status, e.to_status, e.reason, e.actor]), [
        ['waiting_deposit', 'waiting_deposit', 'set_refund_address', 'partner'],
        ['waiting_deposit', 'waiting_deposit', 'set_refund_address', 'partner'],
      ]);
      ok(await act(h, order.id, 'cancel'));
    });

    it('an order that must refund without an address waits in refunding with set_refund_address, then refunds; after that 409', async () => {
      const order = await createOrder(h, { refund_address: null });
      const refunding = await depositAndExchange(order, '0.0001');
      assert.equal(refunding.status, 'refunding');
      assert.equal(refunding.status_reason, 'amount_below_min');
      assert.deepEqual(refunding.actions, ['set_refund_address']);
      assert.equal(refunding.refund_hold_until, null, 'below the pair minimum: nothing to continue, no hold');
      // The worker leaves it alone: nothing to send, no lease, no retries.
      for (let i = 0; i < 3; i++) await h.t.runtime.worker.tick();
      assert.deepEqual(await payoutRows(h, order.id), []);
      assert.equal((await storedOrder(h, order.id)).attempts, 0);

      const set = ok(await setRefundAddress(h, order.id, { refund_address: BTC_REFUND }));
      assert.equal(set.status, 'refunding');
      assert.deepEqual(set.actions, [], 'the refund is requested');
      const [request] = await payoutRows(h, order.id);
      assert.equal(request?.kind, 'refund');
      assert.equal(request?.address, BTC_REFUND);
      assertDecimalEq(request?.amount, '0.0001', 'refund amount');
      conflict(await setRefundAddress(h, order.id, { refund_address: BTC_REFUND_2 }));
      await tickUntil(h, order.id, 'refunded', 1);
      assert.deepEqual(await moves(h, order.id), [
        '∅→waiting_deposit',
        'waiting_deposit→confirming',
        'confirming→exchanging',
        'exchanging→refunding',
        'refunding→refunding',
        'refunding→refunded',
      ]);
    });

    it('a memo chain needs the refund tag: XRP refund address without a tag is 400, with one it is set', async () => {
      const res = await h.t.app.inject({
        method: 'POST',
        url: '/api/v1/partner/orders',
        headers: { 'x-api-key': h.partner.apiKey, 'content-type': 'application/json' },
        payload: JSON.stringify({
          coin_from: 'XRP',
          network_from: 'XRP',
          coin_to: 'ETH',
          network_to: 'ETH',
          amount_from: 500,
          rate_type: 'float',
          recipient_address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
        }),
      });
      assert.equal(res.statusCode, 201, res.body);
      const order = exactJson<OrderJson>(res);
      const xrp = 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh';
      const missing = await setRefundAddress(h, order.id, { refund_address: xrp });
      assert.equal(missing.statusCode, 400, missing.body);
      assert.match(missing.json<{ detail: string }>().detail, /refund_address_tag is required/);
      ok(await setRefundAddress(h, order.id, { refund_address: xrp, refund_address_tag: '12345' }));
      const stored = await storedOrder(h, order.id);
      assert.equal(stored.refund_address_tag, '12345');
      ok(await act(h, order.id, 'cancel'));
    });
  });

  describe('continue or refund (REFUND_HOLD_MINUTES, default 30)', () => {
    /** A fixed order 10% short: off its rate, but inside the pair's limits at the float rate. */
    async function heldOrder(): Promise<OrderJson> {
      const order = await createOrder(h, { rate_type: 'fixed', quote_id: await fixedQuote(h, '0.5') });
      const held = await depositAndExchange(order, new Decimal(order.amount_from_expected).times('0.9').toFixed());
      assert.equal(held.status, 'refunding');
      assert.equal(held.status_reason, 'fixed_rate_mismatch');
      assert.deepEqual(held.actions, ['set_refund_address', 'continue', 'refund']);
      assert.equal(held.refund_hold_until, new Date(h.clock.now().getTime() + 30 * 60 * 1000).toISOString());
      assert.deepEqual(await payoutRows(h, order.id), [], 'no refund is requested while held');
      await h.t.runtime.worker.tick();
      assert.equal((await getOrder(h, order.id)).status, 'refunding', 'the worker waits for the hold');
      return held;
    }

    it('continue: re-priced at the current float rate, exchanged, completed; refund then 409', async () => {
      const held = await heldOrder();
      const continued = ok(await act(h, held.id, 'continue'));
      assert.equal(continued.status, 'exchanging');
      assert.equal(continued.status_reason, null);
      assert.deepEqual(continued.actions, ['set_refund_address']);
      assert.equal(continued.refund_hold_until, null);
      conflict(await act(h, held.id, 'refund'));
      conflict(await act(h, held.id, 'continue'));
      await tickUntil(h, held.id, 'completed', 3);
      // The payout is the float price of what was received, now (the clock has not moved), not the locked rate.
      const stored = await storedOrder(h, held.id);
      const { catalog, quotes } = h.t.runtime;
      const partner = await findPartner(h.t.db.handle.db, stored.partner_id);
      const from = catalog.byId(stored.currency_from_id);
      const to = catalog.byId(stored.currency_to_id);
      assert.ok(from !== undefined && to !== undefined);
      const float = quotes.pricePair(from, to, { amount: new Decimal(held.amount_from_received ?? 'NaN'), rateType: 'float', partner });
      const [payout] = await payoutRows(h, held.id);
      assert.equal(payout?.kind, 'payout');
      assertDecimalEq(payout?.amount, float.amountTo, 'payout = float amount_to of the received amount');
      assertDecimalEq(stored.amount_to_final, float.amountTo, 'amount_to_final');
      assert.notEqual(stored.continued_at, null);
      const trail = await events(h, held.id);
      assert.deepEqual(
        trail.filter((e) => e.reason === 'continue').map((e) => [e.from_status, e.to_status, e.actor]),
        [['refunding', 'exchanging', 'partner']],
      );
    });

    it('refund: requested at once, refunded; continue then 409', async () => {
      const held = await heldOrder();
      const refunding = ok(await act(h, held.id, 'refund'));
      assert.equal(refunding.status, 'refunding');
      assert.deepEqual(refunding.actions, []);
      assert.equal(refunding.refund_hold_until, null);
      conflict(await act(h, held.id, 'continue'));
      await tickUntil(h, held.id, 'refunded', 1);
      const payouts = await payoutRows(h, held.id);
      assert.deepEqual(payouts.map((p) => p.kind), ['refund']);
    });

    it('the hold runs out: the refund proceeds by itself (actor system), and the choice is gone', async () => {
      const held = await heldOrder();
      await advance(h, 30 * 60 * 1000 - 1);
      await h.t.runtime.worker.tick();
      assert.deepEqual((await getOrder(h, held.id)).actions, ['set_refund_address', 'continue', 'refund']);
      await advance(h, 1);
      assert.deepEqual((await getOrder(h, held.id)).actions, ['set_refund_address'], 'a lapsed hold offers no choice');
      conflict(await act(h, held.id, 'continue'));
      await tickUntil(h, held.id, 'refunded', 3);
      const trail = await events(h, held.id);
      assert.deepEqual(
        trail.filter((e) => e.reason === 'hold_expired').map((e) => [e.from_status, e.to_status, e.actor]),
        [['refunding', 'refunding', 'system']],
      );
    });

    it('an amount outside the pair\'s limits is refunded at once: no hold', async () => {
      const order = await createOrder(h, { rate_type: 'fixed', quote_id: await fixedQuote(h, '0.5') });
      const refunding = await depositAndExchange(order, '11');
      assert.equal(refunding.status, 'refunding');
      assert.equal(refunding.refund_hold_until, null);
      assert.deepEqual(refunding.actions, []);
      await tickUntil(h, order.id, 'refunded', 1);
    });
  });
});

describe('order actions with REFUND_HOLD_MINUTES=0', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ REFUND_HOLD_MINUTES: '0' }, new ManualClock());
  });
  after(() => h.t.close());

  it('a fixed-rate mismatch inside the limits is refunded at once', async () => {
    const refunding = await shortFixedOrder(h);
    assert.equal(refunding.status, 'refunding');
    assert.equal(refunding.refund_hold_until, null);
    assert.deepEqual(refunding.actions, []);
    await tickUntil(h, refunding.id, 'refunded', 1);
  });
});
