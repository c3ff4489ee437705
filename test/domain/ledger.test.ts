import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { postingsForMove, totalsByAsset, type MoveToPost } from '../../src/domain/ledger.js';
import type { LifecycleEvent } from '../../src/domain/order-lifecycle.js';
import type { OrderStatus } from '../../src/domain/order-status.js';

/**
 * The posting rules (domain/ledger.ts, docs/adr/0039-ledger.md) as pure functions: every
 * move's postings balance per asset for any amounts, with as many decimals as NUMERIC keeps,
 * and a token payout's fee is booked in its chain's own coin.
 */

const MOVES: readonly [LifecycleEvent, OrderStatus][] = [
  ['confirmed', 'exchanging'],
  ['late_deposit', 'refunding'],
  ['cannot_proceed', 'refunding'],
  ['continue', 'exchanging'],
  ['exchange_filled', 'sending'],
  ['payout_sent', 'completed'],
  ['refund_sent', 'refunded'],
  ['payout_failed', 'failed'],
];

/** A non-negative decimal with up to 40 fractional digits. */
const amount = fc
  .tuple(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.nat({ max: 40 }), fc.bigInt({ min: 0n, max: 10n ** 40n - 1n }))
  .map(([whole, places, fraction]) => (places === 0 ? whole.toString() : `${whole}.${fraction.toString().padStart(40, '0').slice(0, places)}`));

function move(event: LifecycleEvent, to: OrderStatus, amounts: { r: string; t: string; c: string; p: string; f: string }, sandbox = false): MoveToPost {
  return {
    event,
    to,
    order: { id: 'order-1', partner_id: 'partner-1', sandbox, amount_from_received: amounts.r, amount_to_final: amounts.t, partner_fee: amounts.c },
    assetFrom: 'BTC',
    assetTo: 'USDT_ETH',
    settled: { amount: amounts.p, fee: amounts.f, feeAsset: 'ETH' },
    spentFee: { fee: amounts.f, feeAsset: 'ETH' },
  };
}

describe('ledger postings (pure)', () => {
  it('every move balances per asset, to the last of 40 decimals; no line is zero', () => {
    fc.assert(
      fc.property(fc.constantFrom(...MOVES), amount, amount, amount, amount, amount, fc.boolean(), ([event, to], r, t, c, p, f, sandbox) => {
        for (const posting of postingsForMove(move(event, to, { r, t, c, p, f }, sandbox))) {
          assert.ok(posting.entries.length > 0);
          for (const [asset, total] of totalsByAsset(posting.entries)) assert.ok(total.isZero(), `${posting.kind} ${asset} ${total.toFixed()}`);
          for (const entry of posting.entries) {
            assert.notEqual(entry.amount, '0');
            assert.equal(entry.account.startsWith('sandbox:'), sandbox);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('a token payout: the token leaves the hot wallet, its fee in the chain coin is a network fee', () => {
    const [posting] = postingsForMove(move('payout_sent', 'completed', { r: '1', t: '250.5', c: '1', p: '250.5', f: '0.000042' }));
    assert.deepEqual(
      posting?.entries.map((e) => `${e.account} ${e.asset} ${e.amount}`),
      ['payable USDT_ETH 250.5', 'hot_wallet USDT_ETH -250.5', 'network_fees ETH 0.000042', 'hot_wallet ETH -0.000042'],
    );
  });

  it('a reverted payout posts its spent fee only; the order still owes its payout', () => {
    const postings = postingsForMove(move('payout_failed', 'failed', { r: '1', t: '250.5', c: '1', p: '250.5', f: '0.000042' }));
    assert.deepEqual(
      postings.map((p) => [p.kind, p.entries.map((e) => `${e.account} ${e.asset} ${e.amount}`)]),
      [['network_fee', ['network_fees ETH 0.000042', 'hot_wallet ETH -0.000042']]],
    );
  });

  it('a move that does not post, or a move to another status, posts nothing', () => {
    const amounts = { r: '1', t: '2', c: '0', p: '2', f: '0' };
    assert.deepEqual(postingsForMove(move('deposit_seen', 'confirming', amounts)), []);
    assert.deepEqual(postingsForMove(move('operator_fail', 'failed', amounts)), []);
    assert.deepEqual(postingsForMove(move('confirmed', 'confirming', amounts)), []);
  });
});
