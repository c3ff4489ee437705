import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Decimal } from '../../../src/domain/money.js';
import type { CurrencyTerms, PairPricing, QuoteResult } from '../../../src/domain/pricing/index.js';
import { pairLimits, quoteAmount, totalFeeBps } from '../../../src/domain/pricing/index.js';

const d = (s: string) => new Decimal(s);

const BTC: CurrencyTerms = {
  coin: 'btc',
  network: 'bitcoin',
  decimals: 8,
  minAmount: d('0.001'),
  maxAmount: d('10'),
  payoutFee: d('0.0001'),
};
const ETH: CurrencyTerms = {
  coin: 'eth',
  network: 'ethereum',
  decimals: 18,
  minAmount: d('0.01'),
  maxAmount: d('200'),
  payoutFee: d('0.002'),
};
const USDT: CurrencyTerms = {
  coin: 'usdt',
  network: 'tron',
  decimals: 6,
  minAmount: d('1'),
  maxAmount: d('100000'),
  payoutFee: d('1'),
};

// BTC at $60 000, ETH at $3 000: market rate 20 ETH per BTC. Float fees: 50 + 30 = 80 bps, so the
// gross factor is 20 × 0.992 = 19.84 ETH per BTC before the 0.002 ETH payout fee.
const BTC_ETH: PairPricing = {
  from: BTC,
  to: ETH,
  priceFromUsd: d('60000'),
  priceToUsd: d('3000'),
  rateType: 'float',
  markupBps: 30,
  settings: { spreadBps: 50, fixedPremiumBps: 100 },
};

function expectQuote(result: QuoteResult) {
  assert.equal(result.ok, true, `expected a quote, got ${JSON.stringify(result)}`);
  if (!result.ok) throw new Error('unreachable');
  return result;
}

function expectLimits(p: PairPricing) {
  const result = pairLimits(p);
  assert.equal(result.ok, true, `expected limits, got ${JSON.stringify(result)}`);
  if (!result.ok) throw new Error('unreachable');
  return result;
}

describe('quoteAmount: worked BTC → ETH example', () => {
  it('0.5 BTC: 0.5 × 20 × 0.992 − 0.002 = 9.918 ETH at 19.836', () => {
    const q = expectQuote(quoteAmount(BTC_ETH, d('0.5')));
    assert.equal(q.amountTo.toFixed(), '9.918');
    assert.equal(q.rate.toFixed(), '19.836'); // 9.918 / 0.5
    assert.equal(q.exactRate.toFixed(), '19.836');
    assert.equal(q.minAmount.toFixed(), '0.001');
    assert.equal(q.maxAmount.toFixed(), '10');
  });

  it('0.12345678 BTC: exact amount, rate truncated to 18 places, exact rate to 40 digits', () => {
    const q = expectQuote(quoteAmount(BTC_ETH, d('0.12345678')));
    // 0.12345678 × 19.84 = 2.4493825152; minus 0.002 = 2.4473825152 (fits in 18 decimals).
    assert.equal(q.amountTo.toFixed(), '2.4473825152');
    // 2.4473825152 / 0.12345678 = 19.823799998671599891 071191067837667562688...
    assert.equal(q.rate.toFixed(), '19.823799998671599891');
    assert.equal(q.exactRate.toFixed(), '19.82379999867159989107119106783766756268');
  });
});

describe('quoteAmount: rounding on a 6-decimal destination', () => {
  // BTC → USDT at $1: gross factor 60 000 × 0.992 = 59 520 USDT per BTC, payout fee 1 USDT.
  const BTC_USDT: PairPricing = { ...BTC_ETH, from: { ...BTC, minAmount: d('0.0001') }, to: USDT, priceToUsd: d('1') };

  it('rounds amount_to DOWN, never half-up', () => {
    const q = expectQuote(quoteAmount(BTC_USDT, d('0.00012349')));
    // exact: 0.00012349 × 59520 − 1 = 6.3501248; half-up would give 6.350125.
    assert.equal(q.amountTo.toFixed(), '6.350124');
    // 6.3501248 / 0.00012349 = 51422.17831403352498...
    assert.equal(q.rate.toFixed(), '51422.178314');
  });

  it('amount_to is at least amountFrom × rate rounded down, though the raw product can exceed it', () => {
    const amountFrom = d('0.00012349');
    const q = expectQuote(quoteAmount(BTC_USDT, amountFrom));
    const product = amountFrom.times(q.rate); // 6.35012479999586: more decimals than USDT has
    assert.equal(product.toFixed(), '6.35012479999586');
    assert.ok(product.gt(q.amountTo));
    assert.ok(product.toDecimalPlaces(6, Decimal.ROUND_DOWN).lte(q.amountTo));
  });
});

describe('quoteAmount: fees', () => {
  it('subtracts the destination payout fee as an absolute coin_to amount', () => {
    const withoutFee = expectQuote(quoteAmount({ ...BTC_ETH, to: { ...ETH, payoutFee: d('0') } }, d('0.5')));
    const withFee = expectQuote(quoteAmount(BTC_ETH, d('0.5')));
    assert.equal(withoutFee.amountTo.toFixed(), '9.92');
    assert.equal(withoutFee.amountTo.minus(withFee.amountTo).toFixed(), '0.002');
    // The fee costs 0.002 / 0.5 = 0.004 of rate at this amount.
    assert.equal(withoutFee.rate.minus(withFee.rate).toFixed(), '0.004');
  });

  it("ignores the source currency's payout fee", () => {
    const q = expectQuote(quoteAmount({ ...BTC_ETH, from: { ...BTC, payoutFee: d('1') } }, d('0.5')));
    assert.equal(q.amountTo.toFixed(), '9.918');
  });

  it('charges the fixed-rate premium only on fixed', () => {
    assert.equal(totalFeeBps(BTC_ETH), 80);
    assert.equal(totalFeeBps({ ...BTC_ETH, rateType: 'fixed' }), 180);
    const fixed = expectQuote(quoteAmount({ ...BTC_ETH, rateType: 'fixed' }, d('0.5')));
    // 0.5 × 20 × (1 − 180/10000) − 0.002 = 9.82 − 0.002
    assert.equal(fixed.amountTo.toFixed(), '9.818');
    assert.equal(fixed.rate.toFixed(), '19.636');
  });

  it("adds the partner's markup to the operator's fees", () => {
    const noMarkup = expectQuote(quoteAmount({ ...BTC_ETH, markupBps: 0 }, d('0.5')));
    // 0.5 × 20 × 0.995 − 0.002
    assert.equal(noMarkup.amountTo.toFixed(), '9.948');
    const bigMarkup = expectQuote(quoteAmount({ ...BTC_ETH, markupBps: 250 }, d('0.5')));
    // 50 + 250 = 300 bps: 0.5 × 20 × 0.97 − 0.002
    assert.equal(bigMarkup.amountTo.toFixed(), '9.698');
  });
});

describe('pairLimits', () => {
  it('takes the source limits when they are the tighter side', () => {
    // Destination side converted back: (0.01 + 0.002) / 19.84 ≈ 0.000605 BTC and
    // (200 + 0.002) / 19.84 ≈ 10.0807 BTC, both looser than BTC's own 0.001 … 10.
    const limits = expectLimits(BTC_ETH);
    assert.equal(limits.minAmount.toFixed(), '0.001');
    assert.equal(limits.maxAmount.toFixed(), '10');
  });

  it('converts destination limits back through fees and payout fee, min rounded up and max down', () => {
    const p = { ...BTC_ETH, to: { ...ETH, minAmount: d('0.05'), maxAmount: d('150') } };
    const limits = expectLimits(p);
    // (0.05 + 0.002) / 19.84 = 0.0026209677419… → up to 0.00262097
    assert.equal(limits.minAmount.toFixed(), '0.00262097');
    // (150 + 0.002) / 19.84 = 7.5605846774193… → down to 7.56058467
    assert.equal(limits.maxAmount.toFixed(), '7.56058467');
    // At the limits the payout stays inside ETH's own limits: 0.0500000448 and 149.9999998528.
    assert.equal(expectQuote(quoteAmount(p, limits.minAmount)).amountTo.toFixed(), '0.0500000448');
    assert.equal(expectQuote(quoteAmount(p, limits.maxAmount)).amountTo.toFixed(), '149.9999998528');
  });

  it('rounds the source limits to coin_from decimals', () => {
    const limits = expectLimits({
      ...BTC_ETH,
      from: { ...BTC, minAmount: d('0.0010000001'), maxAmount: d('9.9999999999') },
    });
    assert.equal(limits.minAmount.toFixed(), '0.00100001');
    assert.equal(limits.maxAmount.toFixed(), '9.99999999');
  });

  it('is unavailable when min > max', () => {
    // The destination minimum needs 0.00262097 BTC but BTC caps deposits at 0.002.
    const p = { ...BTC_ETH, from: { ...BTC, maxAmount: d('0.002') }, to: { ...ETH, minAmount: d('0.05') } };
    assert.deepEqual(pairLimits(p), { ok: false, reason: 'pair_unavailable' });
    assert.deepEqual(quoteAmount(p, d('0.002')), { ok: false, reason: 'pair_unavailable' });
  });

  it('is unavailable without a positive price', () => {
    for (const price of ['0', '-1', 'NaN', 'Infinity']) {
      assert.deepEqual(pairLimits({ ...BTC_ETH, priceFromUsd: d(price) }), { ok: false, reason: 'pair_unavailable' });
      assert.deepEqual(pairLimits({ ...BTC_ETH, priceToUsd: d(price) }), { ok: false, reason: 'pair_unavailable' });
    }
  });

  it('is unavailable when fees reach 10 000 bps', () => {
    const p = { ...BTC_ETH, markupBps: 10_000 - 50 };
    assert.equal(totalFeeBps(p), 10_000);
    assert.deepEqual(pairLimits(p), { ok: false, reason: 'pair_unavailable' });
    assert.equal(pairLimits({ ...p, markupBps: 10_000 - 51 }).ok, true);
  });

  it('is unavailable when the minimum would pay out nothing', () => {
    // No minimums and no payout fee: min is 0, which pays 0.
    const free = { ...BTC_ETH, from: { ...BTC, minAmount: d('0') }, to: { ...ETH, minAmount: d('0'), payoutFee: d('0') } };
    assert.deepEqual(pairLimits(free), { ok: false, reason: 'pair_unavailable' });
    // A 2-decimal destination whose 1-unit fee leaves a sub-cent payout at the minimum:
    // min = ceil(1 / 59520, 8) = 0.00001681 BTC → 0.00001681 × 59520 − 1 = 0.0005312 → 0.00.
    const cents: PairPricing = {
      ...BTC_ETH,
      from: { ...BTC, minAmount: d('0') },
      to: { ...USDT, decimals: 2, minAmount: d('0') },
      priceToUsd: d('1'),
    };
    assert.deepEqual(pairLimits(cents), { ok: false, reason: 'pair_unavailable' });
    // Raising the source minimum to where the payout is positive makes the pair available.
    assert.equal(pairLimits({ ...cents, from: { ...BTC, minAmount: d('0.0001') } }).ok, true);
  });
});

describe('quoteAmount: amounts the pair does not accept', () => {
  const limits = { minAmount: d('0.001'), maxAmount: d('10') };

  it('reports below_min with the limits', () => {
    for (const amount of ['0.00099999', '0', '-1']) {
      assert.deepEqual(quoteAmount(BTC_ETH, d(amount)), { ok: false, reason: 'below_min', ...limits });
    }
  });

  it('reports above_max with the limits', () => {
    assert.deepEqual(quoteAmount(BTC_ETH, d('10.00000001')), { ok: false, reason: 'above_max', ...limits });
  });

  it('accepts both limits themselves', () => {
    assert.equal(expectQuote(quoteAmount(BTC_ETH, d('0.001'))).amountTo.toFixed(), '0.01784'); // 0.01984 − 0.002
    assert.equal(expectQuote(quoteAmount(BTC_ETH, d('10'))).amountTo.toFixed(), '198.398'); // 198.4 − 0.002
  });

  it('reports too_many_decimals with the allowed decimals, before checking limits', () => {
    assert.deepEqual(quoteAmount(BTC_ETH, d('0.123456789')), { ok: false, reason: 'too_many_decimals', decimals: 8 });
    assert.deepEqual(quoteAmount(BTC_ETH, d('100.000000001')), { ok: false, reason: 'too_many_decimals', decimals: 8 });
    // Trailing zeros are not extra precision.
    assert.equal(quoteAmount(BTC_ETH, d('0.5000000000')).ok, true);
  });

  it('reports pair_unavailable before looking at the amount', () => {
    assert.deepEqual(quoteAmount({ ...BTC_ETH, priceToUsd: d('0') }, d('0.123456789')), {
      ok: false,
      reason: 'pair_unavailable',
    });
  });
});

describe('malformed input is a bug and throws', () => {
  it('rejects negative or fractional bps, bad decimals, negative amounts and non-finite amountFrom', () => {
    assert.throws(() => pairLimits({ ...BTC_ETH, markupBps: -1 }), RangeError);
    assert.throws(() => pairLimits({ ...BTC_ETH, settings: { spreadBps: 0.5, fixedPremiumBps: 0 } }), RangeError);
    assert.throws(() => pairLimits({ ...BTC_ETH, from: { ...BTC, decimals: -1 } }), RangeError);
    assert.throws(() => pairLimits({ ...BTC_ETH, to: { ...ETH, payoutFee: d('-0.1') } }), RangeError);
    assert.throws(() => pairLimits({ ...BTC_ETH, to: { ...ETH, maxAmount: d('Infinity') } }), RangeError);
    assert.throws(() => quoteAmount(BTC_ETH, d('NaN')), RangeError);
  });
});

describe('precision of inputs', () => {
  it('uses every digit of a price longer than the default 20-digit Decimal precision', () => {
    // 3000.0000000000000000000000001 differs from 3000 only in the 29th significant digit.
    const p = { ...BTC_ETH, to: { ...ETH, payoutFee: d('0') }, priceToUsd: d('3000.0000000000000000000000001') };
    const q = expectQuote(quoteAmount(p, d('0.5')));
    // 0.5 × 60000 × 0.992 / 3000.0000000000000000000000001 is a hair under 9.92.
    assert.equal(q.amountTo.toFixed(), '9.919999999999999999');
  });
});
