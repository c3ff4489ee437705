import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { ApplyOptions } from '../../src/services/order-lifecycle.js';
import { FINAL_STATUSES, type LifecycleEvent } from '../../src/domain/order-lifecycle.js';
import { advance, BTC_REFUND, createOrder, ETH_RECIPIENT, startHarness, storedOrder, type Harness } from './lifecycle-helpers.js';
import { ManualClock } from '../helpers/test-app.js';

/**
 * The lifecycle table and its one writer (OrderLifecycle) under random event sequences, on the
 * real database: any event, in any order, at any time, with or without a refund address, as
 * the worker, a chain watcher, the partner or the operator would send it. Whatever the table
 * allows or refuses, the invariants of docs/contract.md §4 and §7.5 hold after every step:
 * - one payout or one refund per order, never both, each requested at most once;
 * - completed, refunded and failed are final; expired is left only by a late deposit;
 * - amounts are never negative;
 * - continue never succeeds once a refund was requested;
 * - every applied move is one audit row (the trail's length is the version + 1) ending at the status.
 */

type Step =
  | { kind: 'event'; event: LifecycleEvent; amount: string; hold: boolean; actor: 'partner' | 'operator' | 'system' }
  | { kind: 'clock'; ms: number };

const EVENTS: readonly LifecycleEvent[] = [
  'deposit_seen', 'confirmations', 'confirmed', 'deposit_dropped', 'time_limit', 'exchange_filled', 'cannot_proceed',
  'payout_sent', 'payout_failed', 'payout_waiting', 'refund_sent', 'late_deposit', 'operator_fail', 'cancel', 'set_refund_address',
  'continue', 'refund', 'hold_expired',
];

/** Positive decimal amounts of up to 8 places. */
const amount = fc.integer({ min: 1, max: 10 ** 9 }).map((units) => (units / 1e8).toFixed(8));

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('event' as const), event: fc.constantFrom(...EVENTS), amount, hold: fc.boolean(), actor: fc.constantFrom('partner' as const, 'operator' as const, 'system' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('clock' as const), ms: fc.constantFrom(60_000, 29 * 60_000, 31 * 60_000) }) },
);

/** What a caller sends with each event (the worker, a watcher, an action route). */
function optionsFor(s: Extract<Step, { kind: 'event' }>, now: Date, currencyToId: string): ApplyOptions {
  switch (s.event) {
    case 'deposit_seen':
    case 'late_deposit':
      return { changes: { deposit_txid: `tx-${s.amount}`, deposit_confirmations: 0, amount_from_received: s.amount } };
    case 'confirmations':
    case 'confirmed':
      return { changes: { deposit_confirmations: 2 } };
    case 'deposit_dropped':
      return { changes: { deposit_txid: null, deposit_confirmations: null, amount_from_received: null } };
    case 'exchange_filled':
      return {
        changes: { amount_to_final: s.amount },
        outbox: { kind: 'payout', currency_id: currencyToId, chain: 'ETH', address: ETH_RECIPIENT, tag: null, amount: s.amount },
      };
    case 'cannot_proceed':
      return { reason: 'fixed_rate_mismatch', ...(s.hold ? { changes: { refund_hold_until: new Date(now.getTime() + 30 * 60_000) } } : {}) };
    case 'payout_sent':
      return { changes: { payout_txid: `payout-${s.amount}` } };
    case 'refund_sent':
      return { changes: { refund_txid: `refund-${s.amount}` } };
    case 'set_refund_address':
      return { changes: { refund_address: BTC_REFUND, refund_address_tag: null }, actor: actorOf(s.actor) };
    case 'cancel':
      return { reason: 'cancelled', actor: actorOf(s.actor) };
    case 'continue':
    case 'refund':
      return { actor: actorOf(s.actor) };
    case 'operator_fail':
      return { reason: 'operator', actor: 'operator' };
    default:
      return {};
  }
}

/** A partner's move names its key (docs/contract.md §10.2): a made-up one, as the lifecycle is driven directly. */
function actorOf(actor: 'partner' | 'operator' | 'system'): ApplyOptions['actor'] {
  return actor === 'operator' ? 'operator' : { keyId: 'pk_property0000000000000' };
}

describe('order lifecycle: invariants under random event sequences (property)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({}, new ManualClock());
  });
  after(() => h.t.close());

  async function payouts(id: string) {
    return h.t.db.handle.db.selectFrom('payouts').select(['kind', 'amount']).where('order_id', '=', id).execute();
  }

  async function trail(id: string) {
    return h.t.db.handle.db.selectFrom('order_events').select(['to_status', 'order_version']).where('order_id', '=', id).orderBy('order_version').execute();
  }

  it('one payout or one refund, final states final, no negative amount, no continue after a refund request', async () => {
    let orders = 0;
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(step, { minLength: 1, maxLength: 14 }), async (withRefundAddress, steps) => {
        const created = await createOrder(h, withRefundAddress ? {} : { refund_address: null });
        orders++;
        const { lifecycle } = h.t.runtime;
        for (const s of steps) {
          if (s.kind === 'clock') {
            // Prices re-polled at the new time, so the next run's order can still be priced.
            await advance(h, s.ms);
            continue;
          }
          const before = await storedOrder(h, created.id);
          const requestedBefore = (await payouts(created.id)).some((p) => p.kind === 'refund');
          const result = await lifecycle.apply(created.id, s.event, optionsFor(s, h.clock.now(), before.currency_to_id));
          const afterRow = await storedOrder(h, created.id);
          const rows = await payouts(created.id);
          const label = `${before.status} + ${s.event} → ${afterRow.status} (${result.ok ? 'applied' : result.reason})`;

          // One payout or one refund per order, each at most once.
          assert.ok(rows.length <= 1, `${label}: payouts ${JSON.stringify(rows)}`);
          // Final states stay final; expired is left only by a late deposit, to refunding.
          if (FINAL_STATUSES.has(before.status) && before.status !== 'expired') assert.equal(afterRow.status, before.status, label);
          if (before.status === 'expired' && afterRow.status !== 'expired') {
            assert.equal(s.event, 'late_deposit', label);
            assert.equal(afterRow.status, 'refunding', label);
          }
          // Amounts never negative (and requests never empty).
          for (const value of [afterRow.amount_from_received, afterRow.amount_to_final]) {
            if (value !== null) assert.ok(Number(value) >= 0, `${label}: amount ${value}`);
          }
          for (const row of rows) assert.ok(Number(row.amount) > 0, `${label}: request of ${row.amount}`);
          // Continue never after a refund request.
          if (s.event === 'continue' && requestedBefore) assert.equal(result.ok, false, label);
          // A requested refund is never replaced by a payout (and the reverse).
          if (requestedBefore) assert.ok(rows.every((row) => row.kind === 'refund'), label);
          // Refunded only with a refund request; completed only with a payout request.
          if (afterRow.status === 'refunded') assert.deepEqual(rows.map((row) => row.kind), ['refund'], label);
          if (afterRow.status === 'completed') assert.deepEqual(rows.map((row) => row.kind), ['payout'], label);
          // A hold only in refunding (the schema's CHECK too).
          if (afterRow.refund_hold_until !== null) assert.equal(afterRow.status, 'refunding', label);
          // Each applied move is one audit row; a refused one writes nothing.
          const events = await trail(created.id);
          assert.equal(events.length, afterRow.version + 1, label);
          assert.equal(events.at(-1)?.to_status, afterRow.status, label);
          assert.equal(afterRow.version, before.version + (result.ok ? 1 : 0), label);
        }
      }),
      { numRuns: Number(process.env.LIFECYCLE_PROPERTY_RUNS ?? 30) },
    );
    assert.ok(orders > 0);
  });
});
