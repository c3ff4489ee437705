import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decideExchange, type ExchangeDecision, type FixedExchange, type FloatPricing } from '../../src/domain/exchange-decision.js';
import { Decimal } from '../../src/domain/money.js';

/** A decision with its amount written out, comparable with deepEqual. */
function plain(decision: ExchangeDecision): unknown {
  return decision.kind === 'fill' ? { kind: 'fill', amountTo: decision.amountTo.toFixed() } : decision;
}

describe('decideExchange: fixed rate', () => {
  const order = (received: string, overrides: Partial<FixedExchange> = {}): FixedExchange => ({
    rateType: 'fixed',
    received: new Decimal(received),
    expected: new Decimal('2'),
    exactRate: new Decimal('15.5'),
    toDecimals: 8,
    tolerancePct: new Decimal('0.5'),
    ...overrides,
  });

  it('received as expected: fills at received × locked rate', () => {
    assert.deepEqual(plain(decideExchange(order('2'))), { kind: 'fill', amountTo: '31' });
  });

  it('within the tolerance, up to its edge on either side: fills at what was received', () => {
    // 0.5 % of 2 is 0.01.
    assert.deepEqual(plain(decideExchange(order('2.01'))), { kind: 'fill', amountTo: '31.155' });
    assert.deepEqual(plain(decideExchange(order('1.99'))), { kind: 'fill', amountTo: '30.845' });
  });

  it('beyond the tolerance on either side: refused as fixed_rate_mismatch', () => {
    assert.deepEqual(decideExchange(order('2.01000001')), { kind: 'refuse', reason: 'fixed_rate_mismatch' });
    assert.deepEqual(decideExchange(order('1.98999999')), { kind: 'refuse', reason: 'fixed_rate_mismatch' });
  });

  it('the payout is the exact product rounded down to coin_to decimals (a 40-digit rate, 18 decimals)', () => {
    const exactRate = new Decimal('0.0312345678901234567890123456789012345678');
    const decision = decideExchange(order('3.5', { expected: new Decimal('3.5'), exactRate, toDecimals: 18 }));
    // 3.5 × rate = 0.1093209876154320987615432098761543209873: cut, never rounded up.
    assert.deepEqual(plain(decision), { kind: 'fill', amountTo: '0.109320987615432098' });
  });

  it('an amount that pays out nothing at the locked rate: refused as fixed_rate_mismatch', () => {
    const tiny = { expected: new Decimal('0.00000001'), exactRate: new Decimal('0.5'), toDecimals: 8 };
    assert.deepEqual(decideExchange(order('0.00000001', tiny)), { kind: 'refuse', reason: 'fixed_rate_mismatch' });
  });
});

describe('decideExchange: float rate', () => {
  const limits = { minAmount: new Decimal('0.01'), maxAmount: new Decimal('10') };
  const decide = (priced: FloatPricing, attempts = 0): ExchangeDecision =>
    decideExchange({ rateType: 'float', priced, attempts, maxAttempts: 5 });

  it('priced: fills at the priced amount', () => {
    assert.deepEqual(plain(decide({ ok: true, amountTo: new Decimal('1.23456789') })), { kind: 'fill', amountTo: '1.23456789' });
  });

  it('below the minimum: refused as amount_below_min', () => {
    assert.deepEqual(decide({ ok: false, reason: 'below_min', ...limits }), { kind: 'refuse', reason: 'amount_below_min' });
  });

  it('above the maximum: refused as amount_above_max', () => {
    assert.deepEqual(decide({ ok: false, reason: 'above_max', ...limits }), { kind: 'refuse', reason: 'amount_above_max' });
  });

  it('finer than coin_from decimals: refused as amount_below_min', () => {
    assert.deepEqual(decide({ ok: false, reason: 'too_many_decimals', decimals: 8 }), { kind: 'refuse', reason: 'amount_below_min' });
  });

  it('pair unavailable or no fresh price: tried again later while attempts are left', () => {
    assert.deepEqual(decide({ ok: false, reason: 'pair_unavailable' }), { kind: 'later', why: 'the pair is not available' });
    assert.deepEqual(decide({ ok: false, reason: 'no_price', coin: 'BTC' }, 3), { kind: 'later', why: 'no fresh price for BTC' });
  });

  it('pair unavailable or no fresh price on the last attempt: refused as exchange_failed', () => {
    assert.deepEqual(decide({ ok: false, reason: 'pair_unavailable' }, 4), { kind: 'refuse', reason: 'exchange_failed' });
    assert.deepEqual(decide({ ok: false, reason: 'no_price', coin: 'BTC' }, 4), { kind: 'refuse', reason: 'exchange_failed' });
    assert.deepEqual(decide({ ok: false, reason: 'no_price', coin: 'BTC' }, 9), { kind: 'refuse', reason: 'exchange_failed' });
  });
});
