import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { CurrencyRow } from '../../src/db/schema/currencies.js';
import { Decimal } from '../../src/domain/money.js';
import { ApiError } from '../../src/errors.js';
import { FixedQuoteTokens } from '../../src/services/fixed-quote-tokens.js';
import { QuoteService, type PairPriceResult } from '../../src/services/quote-service.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';

/** The outcome with its amounts written out, comparable with deepEqual. */
function plain(result: PairPriceResult): unknown {
  if (result.ok) return { ok: true, amountTo: result.amountTo.toFixed(), minAmount: result.minAmount.toFixed() };
  if (result.reason === 'below_min' || result.reason === 'above_max') {
    return { ok: false, reason: result.reason, minAmount: result.minAmount.toFixed(), maxAmount: result.maxAmount.toFixed() };
  }
  return result;
}

describe('QuoteService.tryPricePair: the pricing outcomes as values, the same ones pricePair throws', () => {
  const clock = new ManualClock(new Date('2026-03-01T10:00:00.000Z'));
  let t: TestApp;
  let template: CurrencyRow;
  before(async () => {
    t = await buildTestApp({ clock, env: { PRICE_POLL_SECONDS: '3600' } });
    const btc = t.runtime.catalog.networksOf('BTC')[0];
    assert.ok(btc !== undefined);
    template = btc;
  });
  after(() => t.close());

  const row = (symbol: string, terms: { decimals: number; min: string; max: string; fee: string }): CurrencyRow => ({
    ...template,
    id: randomUUID(),
    coin: symbol,
    network: symbol,
    price_symbol: symbol,
    decimals: terms.decimals,
    min_amount: terms.min,
    max_amount: terms.max,
    payout_fee: terms.fee,
  });
  const from = () => row('AAA', { decimals: 8, min: '0.0002', max: '10', fee: '0.00002' });
  const to = () => row('BBB', { decimals: 18, min: '0.005', max: '250', fee: '0.0005' });

  /** A service whose price book holds exactly `prices` (USD by symbol). */
  const serviceWith = (prices: Record<string, string>) =>
    new QuoteService(
      t.runtime.catalog,
      {
        getPriceUsd: (symbol) => (prices[symbol] === undefined ? undefined : new Decimal(prices[symbol])),
        getPriceFreshUntil: (symbol) => (prices[symbol] === undefined ? undefined : new Date(8.64e15)),
      },
      t.config.pricing,
      new FixedQuoteTokens({ current: randomBytes(32) }),
      clock,
    );
  const bothPriced = { AAA: '67000', BBB: '3500' };

  /** tryPricePair's value, checked against what pricePair returns or throws for the same input. */
  function tryBoth(prices: Record<string, string>, amount: string): PairPriceResult {
    const service = serviceWith(prices);
    const [a, b] = [from(), to()];
    const request = { amount: new Decimal(amount), rateType: 'float' as const };
    const result = service.tryPricePair(a, b, request);
    if (result.ok) {
      assert.deepStrictEqual(service.pricePair(a, b, request), result);
    } else {
      const expected = { no_price: 'pair_unavailable', pair_unavailable: 'pair_unavailable', too_many_decimals: 'bad_request', below_min: 'amount_out_of_range', above_max: 'amount_out_of_range' }[result.reason];
      assert.throws(() => service.pricePair(a, b, request), (error: unknown) => error instanceof ApiError && error.code === expected);
    }
    return result;
  }

  it('priced: the quote, with ok', () => {
    const result = tryBoth(bothPriced, '0.5');
    assert.equal(result.ok, true);
    assert.ok(result.ok && result.amountTo.gt(0) && result.amountFrom.eq('0.5'));
  });

  it('outside the limits: below_min or above_max with the limits (the minimum raised by the destination side)', () => {
    assert.deepEqual(plain(tryBoth(bothPriced, '0.0001')), { ok: false, reason: 'below_min', minAmount: '0.00029022', maxAmount: '10' });
    assert.deepEqual(plain(tryBoth(bothPriced, '10.00000001')), { ok: false, reason: 'above_max', minAmount: '0.00029022', maxAmount: '10' });
  });

  it('finer than coin_from allows: too_many_decimals', () => {
    assert.deepEqual(plain(tryBoth(bothPriced, '0.123456789')), { ok: false, reason: 'too_many_decimals', decimals: 8, field: 'amount' });
  });

  it('no fresh price for either coin: no_price naming the coin', () => {
    assert.deepEqual(plain(tryBoth({ BBB: '3500' }, '0.5')), { ok: false, reason: 'no_price', coin: 'AAA' });
    assert.deepEqual(plain(tryBoth({ AAA: '67000' }, '0.5')), { ok: false, reason: 'no_price', coin: 'BBB' });
  });

  it('a price of zero: pair_unavailable', () => {
    assert.deepEqual(plain(tryBoth({ AAA: '0', BBB: '3500' }, '0.5')), { ok: false, reason: 'pair_unavailable' });
  });
});
