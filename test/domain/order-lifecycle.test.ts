import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ORDER_STATUSES, type OrderStatus } from '../../src/domain/order-status.js';
import { FINAL_STATUSES, transition, type LifecycleEvent, type TransitionContext } from '../../src/domain/order-lifecycle.js';

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
];

const CONTEXTS: readonly TransitionContext[] = [
  { pastExpiry: false, hasRefundAddress: false },
  { pastExpiry: false, hasRefundAddress: true },
  { pastExpiry: true, hasRefundAddress: false },
  { pastExpiry: true, hasRefundAddress: true },
];

const label = (c: TransitionContext): string => `${c.pastExpiry ? 'past' : 'before'} expiry, ${c.hasRefundAddress ? 'with' : 'no'} refund address`;

/**
 * DESIGN §4, written out independently of the code: every allowed move, with the context flags
 * it depends on. `pastExpiry` / `hasRefundAddress` of `undefined` means "either".
 */
interface Allowed {
  from: OrderStatus;
  event: LifecycleEvent;
  pastExpiry?: boolean;
  hasRefundAddress?: boolean;
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
  { from: 'exchanging', event: 'cannot_proceed', hasRefundAddress: true, to: 'refunding' },
  { from: 'exchanging', event: 'cannot_proceed', hasRefundAddress: false, to: 'failed' },
  { from: 'sending', event: 'payout_sent', to: 'completed' },
  { from: 'sending', event: 'payout_failed', to: 'failed' },
  { from: 'refunding', event: 'refund_sent', to: 'refunded' },
  { from: 'expired', event: 'late_deposit', hasRefundAddress: true, to: 'refunding' },
  { from: 'expired', event: 'late_deposit', hasRefundAddress: false, to: 'failed' },
  // Any non-final status: the operator may fail the order by hand. A waiting order past
  // expires_at already reads expired (final) before the sweep stores it, so it is not failed.
  { from: 'waiting_deposit', event: 'operator_fail', pastExpiry: false, to: 'failed' },
  ...(['confirming', 'exchanging', 'sending', 'refunding'] as const).map(
    (from): Allowed => ({ from, event: 'operator_fail', to: 'failed' }),
  ),
];

function expected(from: OrderStatus, event: LifecycleEvent, context: TransitionContext): OrderStatus | undefined {
  const rule = ALLOWED.find(
    (row) =>
      row.from === from &&
      row.event === event &&
      (row.pastExpiry === undefined || row.pastExpiry === context.pastExpiry) &&
      (row.hasRefundAddress === undefined || row.hasRefundAddress === context.hasRefundAddress),
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

describe('order state machine (DESIGN §4)', () => {
  describe('every allowed move', () => {
    for (const row of ALLOWED) {
      const contexts = CONTEXTS.filter(
        (c) =>
          (row.pastExpiry === undefined || c.pastExpiry === row.pastExpiry) &&
          (row.hasRefundAddress === undefined || c.hasRefundAddress === row.hasRefundAddress),
      );
      const flags = [
        row.pastExpiry === undefined ? '' : row.pastExpiry ? 'past expiry' : 'before expiry',
        row.hasRefundAddress === undefined ? '' : row.hasRefundAddress ? 'refund address' : 'no refund address',
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
    ];
    for (const [from, event, flags] of samples) {
      it(`${from} + ${event}${flags === undefined ? '' : ` ${JSON.stringify(flags)}`}`, () => {
        for (const context of CONTEXTS) {
          if (flags?.pastExpiry !== undefined && context.pastExpiry !== flags.pastExpiry) continue;
          if (flags?.hasRefundAddress !== undefined && context.hasRefundAddress !== flags.hasRefundAddress) continue;
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
    // The 19 rows above, expanded over the contexts each one applies to.
    assert.equal(allowed, 58);
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
    const early = transition('waiting_deposit', 'time_limit', { pastExpiry: false, hasRefundAddress: true });
    assert.equal(early.ok, false);
  });
});
