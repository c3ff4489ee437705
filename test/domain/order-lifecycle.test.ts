import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ORDER_STATUSES, type OrderStatus } from '../../src/domain/order-status.js';
import {
  actionsFor,
  FINAL_STATUSES,
  orderContext,
  refundRequested,
  transition,
  type LifecycleEvent,
  type RefundHold,
  type TransitionContext,
} from '../../src/domain/order-lifecycle.js';

const EVENTS: readonly LifecycleEvent[] = [
  'deposit_seen',
  'confirmations',
  'confirmed',
  'deposit_dropped',
  'time_limit',
  'exchange_filled',
  'cannot_proceed',
  'payout_sent',
  'payout_failed',
  'refund_sent',
  'late_deposit',
  'operator_fail',
  'cancel',
  'set_refund_address',
  'continue',
  'refund',
  'hold_expired',
];

const HOLDS: readonly RefundHold[] = ['none', 'active', 'lapsed'];

const CONTEXTS: readonly TransitionContext[] = [false, true].flatMap((pastExpiry) =>
  [false, true].flatMap((hasRefundAddress) => HOLDS.map((refundHold) => ({ pastExpiry, hasRefundAddress, refundHold }))),
);

const label = (c: TransitionContext): string =>
  `${c.pastExpiry ? 'past' : 'before'} expiry, ${c.hasRefundAddress ? 'with' : 'no'} refund address, hold ${c.refundHold}`;

/**
 * docs/contract.md §4, written out independently of the code: every allowed move, with the context flags
 * it depends on. `pastExpiry` / `hasRefundAddress` of `undefined` means "either".
 */
interface Allowed {
  from: OrderStatus;
  event: LifecycleEvent;
  pastExpiry?: boolean;
  hasRefundAddress?: boolean;
  refundHold?: RefundHold;
  to: OrderStatus;
}

const ALLOWED: readonly Allowed[] = [
  { from: 'waiting_deposit', event: 'deposit_seen', pastExpiry: false, to: 'confirming' },
  { from: 'waiting_deposit', event: 'time_limit', pastExpiry: true, to: 'expired' },
  { from: 'confirming', event: 'confirmations', to: 'confirming' },
  { from: 'confirming', event: 'confirmed', to: 'exchanging' },
  { from: 'confirming', event: 'deposit_dropped', pastExpiry: false, to: 'waiting_deposit' },
  { from: 'confirming', event: 'deposit_dropped', pastExpiry: true, to: 'expired' },
  { from: 'exchanging', event: 'exchange_filled', to: 'sending' },
  // Without a refund address the order waits in refunding for one (docs/contract.md §7.5), never fails.
  { from: 'exchanging', event: 'cannot_proceed', to: 'refunding' },
  { from: 'sending', event: 'payout_sent', to: 'completed' },
  { from: 'sending', event: 'payout_failed', to: 'failed' },
  // Only a requested refund (not held, with an address) is sent.
  { from: 'refunding', event: 'refund_sent', refundHold: 'none', hasRefundAddress: true, to: 'refunded' },
  { from: 'expired', event: 'late_deposit', to: 'refunding' },
  // Actions (docs/contract.md §7.5).
  { from: 'waiting_deposit', event: 'cancel', pastExpiry: false, to: 'expired' },
  { from: 'waiting_deposit', event: 'set_refund_address', pastExpiry: false, to: 'waiting_deposit' },
  { from: 'confirming', event: 'set_refund_address', to: 'confirming' },
  { from: 'exchanging', event: 'set_refund_address', to: 'exchanging' },
  // Until the refund is requested: while held, or while waiting for an address.
  { from: 'refunding', event: 'set_refund_address', refundHold: 'active', to: 'refunding' },
  { from: 'refunding', event: 'set_refund_address', refundHold: 'lapsed', to: 'refunding' },
  { from: 'refunding', event: 'set_refund_address', refundHold: 'none', hasRefundAddress: false, to: 'refunding' },
  { from: 'refunding', event: 'continue', refundHold: 'active', to: 'exchanging' },
  { from: 'refunding', event: 'refund', refundHold: 'active', to: 'refunding' },
  { from: 'refunding', event: 'hold_expired', refundHold: 'lapsed', to: 'refunding' },
  // Any non-final status: the operator may fail the order by hand. A waiting order past
  // expires_at already reads expired (final) before the sweep stores it, so it is not failed.
  { from: 'waiting_deposit', event: 'operator_fail', pastExpiry: false, to: 'failed' },
  ...(['confirming', 'exchanging', 'sending', 'refunding'] as const).map(
    (from): Allowed => ({ from, event: 'operator_fail', to: 'failed' }),
  ),
];

/** ALLOWED expanded over the contexts each row applies to. */
const ALLOWED_COUNT = ALLOWED.reduce(
  (sum, row) =>
    sum +
    (row.pastExpiry === undefined ? 2 : 1) * (row.hasRefundAddress === undefined ? 2 : 1) * (row.refundHold === undefined ? 3 : 1),
  0,
);

function expected(from: OrderStatus, event: LifecycleEvent, context: TransitionContext): OrderStatus | undefined {
  const rule = ALLOWED.find(
    (row) =>
      row.from === from &&
      row.event === event &&
      (row.pastExpiry === undefined || row.pastExpiry === context.pastExpiry) &&
      (row.hasRefundAddress === undefined || row.hasRefundAddress === context.hasRefundAddress) &&
      (row.refundHold === undefined || row.refundHold === context.refundHold),
  );
  return rule?.to;
}

function assertRefused(from: OrderStatus, event: LifecycleEvent, context: TransitionContext): void {
  const result = transition(from, event, context);
  assert.equal(result.ok, false, `${from} + ${event} (${label(context)}) must be refused, got ${JSON.stringify(result)}`);
  if (!result.ok) {
    assert.equal(typeof result.reason, 'string');
    assert.ok(result.reason.length > 0, `${from} + ${event}: refusal without a reason`);
  }
}

describe('order state machine (docs/contract.md §4)', () => {
  describe('every allowed move', () => {
    for (const row of ALLOWED) {
      const contexts = CONTEXTS.filter(
        (c) =>
          (row.pastExpiry === undefined || c.pastExpiry === row.pastExpiry) &&
          (row.hasRefundAddress === undefined || c.hasRefundAddress === row.hasRefundAddress) &&
          (row.refundHold === undefined || c.refundHold === row.refundHold),
      );
      const flags = [
        row.pastExpiry === undefined ? '' : row.pastExpiry ? 'past expiry' : 'before expiry',
        row.hasRefundAddress === undefined ? '' : row.hasRefundAddress ? 'refund address' : 'no refund address',
        row.refundHold === undefined ? '' : `hold ${row.refundHold}`,
      ].filter((text) => text !== '');
      it(`${row.from} + ${row.event}${flags.length > 0 ? ` (${flags.join(', ')})` : ''} → ${row.to}`, () => {
        for (const context of contexts) {
          assert.deepEqual(transition(row.from, row.event, context), { ok: true, to: row.to }, label(context));
        }
      });
    }
  });

  describe('moves refused with a reason', () => {
    const samples: Array<[OrderStatus, LifecycleEvent, Partial<TransitionContext>?]> = [
      ['waiting_deposit', 'payout_sent'],
      ['waiting_deposit', 'confirmed'],
      ['waiting_deposit', 'exchange_filled'],
      ['waiting_deposit', 'late_deposit'],
      ['waiting_deposit', 'deposit_seen', { pastExpiry: true }],
      ['waiting_deposit', 'time_limit', { pastExpiry: false }],
      ['waiting_deposit', 'operator_fail', { pastExpiry: true }],
      ['confirming', 'deposit_seen'],
      ['confirming', 'payout_sent'],
      ['confirming', 'time_limit', { pastExpiry: true }],
      ['exchanging', 'payout_sent'],
      ['exchanging', 'deposit_dropped'],
      ['exchanging', 'refund_sent'],
      ['sending', 'exchange_filled'],
      ['sending', 'cannot_proceed'],
      ['sending', 'refund_sent'],
      ['refunding', 'payout_sent'],
      ['refunding', 'cannot_proceed'],
      ['expired', 'deposit_seen'],
      ['expired', 'operator_fail'],
      ['expired', 'time_limit', { pastExpiry: true }],
      ['completed', 'operator_fail'],
      ['completed', 'payout_sent'],
      ['refunded', 'operator_fail'],
      ['refunded', 'refund_sent'],
      ['failed', 'operator_fail'],
      ['failed', 'late_deposit', { hasRefundAddress: true }],
      ['waiting_deposit', 'cancel', { pastExpiry: true }],
      ['confirming', 'cancel'],
      ['expired', 'cancel'],
      ['refunding', 'set_refund_address', { refundHold: 'none', hasRefundAddress: true }],
      ['refunding', 'continue', { refundHold: 'none' }],
      ['refunding', 'continue', { refundHold: 'lapsed' }],
      ['refunding', 'refund', { refundHold: 'none' }],
      ['refunding', 'hold_expired', { refundHold: 'active' }],
      ['refunding', 'refund_sent', { refundHold: 'active' }],
      ['refunding', 'refund_sent', { hasRefundAddress: false }],
      ['sending', 'set_refund_address'],
      ['completed', 'set_refund_address'],
      ['exchanging', 'continue'],
    ];
    for (const [from, event, flags] of samples) {
      it(`${from} + ${event}${flags === undefined ? '' : ` ${JSON.stringify(flags)}`}`, () => {
        for (const context of CONTEXTS) {
          if (flags?.pastExpiry !== undefined && context.pastExpiry !== flags.pastExpiry) continue;
          if (flags?.hasRefundAddress !== undefined && context.hasRefundAddress !== flags.hasRefundAddress) continue;
          if (flags?.refundHold !== undefined && context.refundHold !== flags.refundHold) continue;
          assertRefused(from, event, context);
        }
      });
    }
  });

  it('the whole matrix (every status × event × context) matches the table, nothing more', () => {
    let allowed = 0;
    for (const from of ORDER_STATUSES) {
      for (const event of EVENTS) {
        for (const context of CONTEXTS) {
          const to = expected(from, event, context);
          if (to === undefined) assertRefused(from, event, context);
          else {
            allowed++;
            assert.deepEqual(transition(from, event, context), { ok: true, to }, `${from} + ${event} (${label(context)})`);
          }
        }
      }
    }
    // The rows above, expanded over the 12 contexts each one applies to.
    assert.equal(allowed, ALLOWED_COUNT);
  });

  it('final states are completed, expired, refunded and failed; only a late deposit leaves expired', () => {
    assert.deepEqual([...FINAL_STATUSES].sort(), ['completed', 'expired', 'failed', 'refunded']);
    for (const from of FINAL_STATUSES) {
      for (const event of EVENTS) {
        for (const context of CONTEXTS) {
          if (from === 'expired' && event === 'late_deposit') continue;
          assertRefused(from, event, context);
        }
      }
    }
  });

  it('the refusal names the event and the status', () => {
    const result = transition('completed', 'operator_fail', CONTEXTS[0] as TransitionContext);
    assert.deepEqual(result, { ok: false, reason: 'operator_fail is not allowed in status completed' });
    const early = transition('waiting_deposit', 'time_limit', { pastExpiry: false, hasRefundAddress: true, refundHold: 'none' });
    assert.equal(early.ok, false);
  });
});

describe('order actions (docs/contract.md §7.5): computed from the table', () => {
  it('an action is offered exactly when the table allows its move', () => {
    const byEvent = { cancel: 'cancel', set_refund_address: 'set_refund_address', continue: 'continue', refund: 'refund' } as const;
    for (const status of ORDER_STATUSES) {
      for (const context of CONTEXTS) {
        const offered = actionsFor(status, context);
        for (const [action, event] of Object.entries(byEvent)) {
          assert.equal(offered.includes(action as keyof typeof byEvent), expected(status, event, context) !== undefined, `${status} ${action} (${label(context)})`);
        }
      }
    }
  });

  it('the offers of the states a partner sees', () => {
    const fresh: TransitionContext = { pastExpiry: false, hasRefundAddress: false, refundHold: 'none' };
    assert.deepEqual(actionsFor('waiting_deposit', fresh), ['cancel', 'set_refund_address']);
    assert.deepEqual(actionsFor('refunding', fresh), ['set_refund_address'], 'waiting for a refund address');
    assert.deepEqual(actionsFor('refunding', { ...fresh, hasRefundAddress: true, refundHold: 'active' }), ['set_refund_address', 'continue', 'refund']);
    assert.deepEqual(actionsFor('refunding', { ...fresh, hasRefundAddress: true }), [], 'the refund is requested');
    // The hold ran out and the worker has not moved it yet: no choice left, the address may still change.
    assert.deepEqual(actionsFor('refunding', { ...fresh, hasRefundAddress: true, refundHold: 'lapsed' }), ['set_refund_address']);
    for (const status of FINAL_STATUSES) assert.deepEqual(actionsFor(status, fresh), [], status);
    assert.deepEqual(actionsFor('sending', fresh), []);
  });

  it('a refund is requested in refunding, not held, with an address: set_refund_address is refused from then on', () => {
    for (const context of CONTEXTS) {
      const requested = refundRequested('refunding', context);
      assert.equal(requested, context.refundHold === 'none' && context.hasRefundAddress, label(context));
      assert.equal(transition('refunding', 'set_refund_address', context).ok, !requested, label(context));
      for (const status of ORDER_STATUSES.filter((s) => s !== 'refunding')) assert.equal(refundRequested(status, context), false);
    }
  });

  it('the context from the columns: a memo chain refund needs its tag, the hold lapses at its time', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const base = { expires_at: new Date(now.getTime() + 1000), refund_address: 'r', refund_address_tag: null, deposit_address_tag: null, refund_hold_until: null };
    assert.deepEqual(orderContext(base, now), { pastExpiry: false, hasRefundAddress: true, refundHold: 'none' });
    assert.equal(orderContext({ ...base, deposit_address_tag: '7' }, now).hasRefundAddress, false);
    assert.equal(orderContext({ ...base, deposit_address_tag: '7', refund_address_tag: '9' }, now).hasRefundAddress, true);
    assert.equal(orderContext({ ...base, refund_address: null }, now).hasRefundAddress, false);
    assert.equal(orderContext({ ...base, refund_hold_until: new Date(now.getTime() + 1) }, now).refundHold, 'active');
    assert.equal(orderContext({ ...base, refund_hold_until: now }, now).refundHold, 'lapsed');
    assert.equal(orderContext({ ...base, expires_at: now }, now).pastExpiry, true);
  });
});
