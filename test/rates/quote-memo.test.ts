import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Decimal, type Rounding } from '../../src/domain/money.js';
import fc from 'fast-check';
import type { CurrencyRow } from '../../src/db/schema/currencies.js';
import type { PartnerRow } from '../../src/db/schema/partners.js';
import { ApiError } from '../../src/errors.js';
import { FixedQuoteTokens } from '../../src/services/fixed-quote-tokens.js';
import { QuoteService, type PricedQuote, type QuoteRequest } from '../../src/services/quote-service.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';
import { currencyIds, getRates, oracle, rawNumber } from './rates-helpers.js';

type Outcome = { quote: PricedQuote } | { error: { code: string; message: string; extra: unknown } };

/** What pricePair returned or the ApiError it threw, comparable with deepStrictEqual. */
function outcome(price: () => PricedQuote): Outcome {
  try {
    return { quote: price() };
  } catch (error) {
    if (error instanceof ApiError) return { error: { code: error.code, message: error.message, extra: error.extra } };
    throw error;
  }
}

function partnerWithMarkup(markupBps: number): PartnerRow {
  const at = new Date('2026-01-01T00:00:00.000Z');
  return {
    id: randomUUID(),
    name: 'p',
    status: 'active',
    markup_bps: markupBps,
    rate_limit_per_minute: 600,
    max_open_orders: null,
    cors_origins: [],
    created_at: at,
    updated_at: at,
  };
}

/** USD prices by price symbol, handed out as the price book does: one Decimal instance until set again. */
class SettablePrices {
  private readonly prices = new Map<string, Decimal>();
  set(symbol: string, price: string | undefined): void {
    if (price === undefined) this.prices.delete(symbol);
    else this.prices.set(symbol, new Decimal(price));
  }
  getPriceUsd(symbol: string): Decimal | undefined {
    return this.prices.get(symbol);
  }
  getPriceFreshUntil(symbol: string): Date | undefined {
    return this.prices.has(symbol) ? new Date(8.64e15) : undefined;
  }
}

describe('QuoteService pair memo', () => {
  const clock = new ManualClock(new Date('2026-03-01T10:00:00.000Z'));
  let t: TestApp;
  /** A real catalog row, the template for the synthetic ones below. */
  let template: CurrencyRow;
  before(async () => {
    t = await buildTestApp({ clock, env: { PRICE_POLL_SECONDS: '3600' } });
    const btc = t.runtime.catalog.networksOf('BTC')[0];
    assert.ok(btc !== undefined);
    template = btc;
  });
  after(() => t.close());

  /** A service on the app's catalog, database and settings, with prices the test sets. */
  const serviceWith = (prices: SettablePrices) =>
    new QuoteService(t.runtime.catalog, prices, t.config.pricing, new FixedQuoteTokens({ current: randomBytes(32) }), clock);

  const row = (id: string, symbol: string, terms: { decimals: number; min: string; max: string; fee: string }): CurrencyRow => ({
    ...template,
    id,
    coin: symbol,
    network: symbol,
    price_symbol: symbol,
    decimals: terms.decimals,
    min_amount: terms.min,
    max_amount: terms.max,
    payout_fee: terms.fee,
  });

  /** AAA at $67 000 (8 decimals) to BBB at $3 500 (18 decimals), and a service pricing them. */
  function aaaToBbb(fromId = randomUUID()) {
    const prices = new SettablePrices();
    prices.set('AAA', '67000');
    prices.set('BBB', '3500');
    const from = row(fromId, 'AAA', { decimals: 8, min: '0.0002', max: '10', fee: '0.00002' });
    const to = row(randomUUID(), 'BBB', { decimals: 18, min: '0.005', max: '250', fee: '0.0005' });
    return { prices, from, to, service: serviceWith(prices) };
  }

  it('reuses the per-pair result while rows, prices and settings are the same objects', () => {
    const { prices, from, to, service } = aaaToBbb();
    const first = service.pricePair(from, to, { amount: new Decimal('0.5'), rateType: 'float' });
    const second = service.pricePair(from, to, { amount: new Decimal('1.25'), rateType: 'float' });
    // The limits come from the one memoised per-pair result, so they are the very same instances.
    assert.equal(second.minAmount, first.minAmount);
    assert.equal(second.maxAmount, first.maxAmount);
    assert.deepStrictEqual(second, serviceWith(prices).pricePair(from, to, { amount: new Decimal('1.25'), rateType: 'float' }));
    // Another rate type or markup is another entry.
    const fixed = service.pricePair(from, to, { amount: new Decimal('0.5'), rateType: 'fixed' });
    assert.notEqual(fixed.minAmount, first.minAmount);
    const partner = service.pricePair(from, to, { amount: new Decimal('0.5'), rateType: 'float', partner: partnerWithMarkup(0) });
    assert.ok(partner.rate.gt(first.rate));
  });

  it('picks up a price change, including a new Decimal of the same value', () => {
    const { prices, from, to, service } = aaaToBbb();
    const request = { amount: new Decimal('1'), rateType: 'float' as const };
    const before = service.pricePair(from, to, request);
    assert.equal(before.rate.toFixed(), oracle({ from: 'BTC', to: 'ETH', amount: '1' }).rate.toFixed());

    prices.set('AAA', '70000');
    const after = service.pricePair(from, to, request);
    assert.equal(after.rate.toFixed(), '19.7995'); // 70000 / 3500 × 0.99 − 0.0005
    assert.deepStrictEqual(after, serviceWith(prices).pricePair(from, to, request));

    prices.set('BBB', '3500'); // same value, new instance: recomputed, same numbers
    const again = service.pricePair(from, to, request);
    assert.notEqual(again.minAmount, after.minAmount);
    assert.deepStrictEqual(again, after);

    prices.set('BBB', undefined);
    assert.throws(() => service.pricePair(from, to, request), { code: 'pair_unavailable', message: /no fresh price for BBB/ });
  });

  it('picks up a replaced catalog row (same id, new object)', () => {
    const id = randomUUID();
    const { from, to, service } = aaaToBbb(id);
    const request = { amount: new Decimal('0.0005'), rateType: 'float' as const };
    assert.equal(service.pricePair(from, to, request).maxAmount.toFixed(), '10');

    const replaced = row(id, 'AAA', { decimals: 8, min: '0.001', max: '2', fee: '0.00002' });
    // The limits in coin_to (v1.1) are the payouts at the new limits.
    const payoutAt = (amount: string) => service.pricePair(replaced, to, { ...request, amount: new Decimal(amount) }).amountTo;
    const limitsTo = { min_amount_to: payoutAt('0.001'), max_amount_to: payoutAt('2') };
    assert.throws(() => service.pricePair(replaced, to, request), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.code, 'amount_out_of_range');
      assert.deepStrictEqual(error.extra, { min_amount: new Decimal('0.001'), max_amount: new Decimal('2'), ...limitsTo });
      return true;
    });
    // The old object, still held by a request in flight, keeps its own terms.
    assert.equal(service.pricePair(from, to, request).maxAmount.toFixed(), '10');
  });

  it('stays bounded: past the limit the memo starts over, with the same results', () => {
    const { from, to, service } = aaaToBbb();
    const request = (markupBps: number): Pick<QuoteRequest, 'amount' | 'rateType' | 'partner'> => ({
      amount: new Decimal('1'),
      rateType: 'float',
      partner: partnerWithMarkup(markupBps),
    });
    const first = service.pricePair(from, to, request(0));
    assert.equal(service.pricePair(from, to, request(0)).minAmount, first.minAmount);
    // 10 000 more keys: every markup from 1 to 5 000 bps, float and fixed.
    for (let markup = 1; markup <= 5_000; markup++) {
      service.pricePair(from, to, request(markup));
      service.pricePair(from, to, { ...request(markup), rateType: 'fixed' });
    }
    const later = service.pricePair(from, to, request(0));
    assert.notEqual(later.minAmount, first.minAmount, 'the memo was cleared on the way');
    assert.deepStrictEqual(later, first);
  });

  it('the memoised path gives exactly what a fresh computation gives (random pairs, amounts, markups, changes)', () => {
    const SYMBOLS = ['AAA', 'BBB', 'CCC'];
    // Prices within five orders of magnitude of each other and wide limits, so most pairs are
    // offered and the amount outcomes (too many decimals, below, above, priced) all come up.
    const termsArb = fc
      .record({
        decimals: fc.integer({ min: 0, max: 18 }),
        min: fc.bigInt(1n, 10n ** 6n),
        span: fc.bigInt(0n, 10n ** 13n),
        fee: fc.bigInt(0n, 10n ** 4n),
      })
      .map(({ decimals, min: minUnits, span, fee }) => {
        const inPlaces = (units: bigint, rounding: Rounding) =>
          new Decimal(`${units}e-6`).toDecimalPlaces(decimals, rounding);
        const min = Decimal.max(inPlaces(minUnits, Decimal.ROUND_UP), new Decimal(`1e-${decimals}`));
        const max = min.plus(inPlaces(span, Decimal.ROUND_DOWN));
        return { decimals, min: min.toFixed(), max: max.toFixed(), fee: inPlaces(fee, Decimal.ROUND_UP).toFixed() };
      });
    const decimalArb = (maxUnits: bigint, maxScale: number) =>
      fc.tuple(fc.bigInt(0n, maxUnits), fc.integer({ min: 0, max: maxScale })).map(([units, scale]) => new Decimal(`${units}e-${scale}`));
    /** A USD price from 0.01 to 100 000, or (one in twenty) no price at all. */
    const priceArb = fc.option(
      decimalArb(10n ** 5n, 2).map((price) => (price.isZero() ? '1' : price.toFixed())),
      { nil: undefined, freq: 20 },
    );
    const slotArb = fc.integer({ min: 0, max: SYMBOLS.length - 1 });
    const opArb = fc.oneof(
      {
        weight: 8,
        arbitrary: fc.record({
          kind: fc.constant('quote' as const),
          from: slotArb,
          to: slotArb,
          // undefined: the pair minimum; a bound: the row's own min or max; else arbitrary, up to 20 places.
          amount: fc.oneof(
            fc.constant(undefined),
            fc.constantFrom('min' as const, 'max' as const),
            decimalArb(10n ** 14n, 20),
          ),
          rateType: fc.constantFrom('float' as const, 'fixed' as const),
          markupBps: fc.option(fc.constantFrom(0, 25, 200, 1_000, 9_800), { nil: undefined }),
        }),
      },
      {
        weight: 2,
        // terms undefined: the same terms in a new object, as every catalog refresh hands out.
        arbitrary: fc.record({ kind: fc.constant('replaceRow' as const), slot: slotArb, terms: fc.option(termsArb, { nil: undefined }) }),
      },
      {
        weight: 1,
        // 'same': the same value again as a new instance (as a poll hands it out); undefined: no price.
        arbitrary: fc.record({ kind: fc.constant('setPrice' as const), slot: slotArb, price: fc.oneof(fc.constant('same' as const), priceArb) }),
      },
    );
    const startArb = fc.tuple(fc.tuple(termsArb, termsArb, termsArb), fc.tuple(priceArb, priceArb, priceArb));
    const opsArb = fc.array(opArb, { minLength: 1, maxLength: 40, size: 'medium' });
    fc.assert(
      fc.property(startArb, opsArb, ([terms, initialPrices], ops) => {
        const ids = SYMBOLS.map(() => randomUUID());
        const rows = SYMBOLS.map((symbol, i) => row(ids[i] ?? '', symbol, terms[i] ?? terms[0]));
        const prices = new SettablePrices();
        SYMBOLS.forEach((symbol, i) => prices.set(symbol, initialPrices[i]));
        const memoised = serviceWith(prices);
        for (const op of ops) {
          if (op.kind === 'replaceRow') {
            const current = rows[op.slot];
            if (current === undefined) throw new Error('unreachable');
            rows[op.slot] = op.terms === undefined ? { ...current } : row(current.id, current.price_symbol, op.terms);
            continue;
          }
          if (op.kind === 'setPrice') {
            const symbol = SYMBOLS[op.slot] ?? '';
            prices.set(symbol, op.price === 'same' ? prices.getPriceUsd(symbol)?.toFixed() : op.price);
            continue;
          }
          const from = rows[op.from];
          const to = rows[op.to];
          if (from === undefined || to === undefined || op.from === op.to) continue;
          const amount =
            op.amount === 'min' ? new Decimal(from.min_amount) : op.amount === 'max' ? new Decimal(from.max_amount) : op.amount;
          const partner = op.markupBps === undefined ? undefined : partnerWithMarkup(op.markupBps);
          const request = { amount, rateType: op.rateType, partner };
          const fresh = outcome(() => serviceWith(prices).pricePair(from, to, request));
          assert.deepStrictEqual(outcome(() => memoised.pricePair(from, to, request)), fresh);
          // Asked again at once, typically a memo hit: still the same.
          assert.deepStrictEqual(outcome(() => memoised.pricePair(from, to, request)), fresh);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('through the API: a currency update reaches the next quote', async () => {
    const ids = await currencyIds(t);
    const btcId = ids.get('BTC/BTC');
    assert.ok(btcId !== undefined);
    const before = await getRates(t, 'coin_from=BTC&coin_to=ETH');
    assert.equal(before.statusCode, 200, before.body);
    assert.equal(rawNumber(before.body, 'min_amount'), oracle({ from: 'BTC', to: 'ETH' }).minAmount.toFixed());
    await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=0.5'); // warm the memo

    const patched = await t.admin('PATCH', `/admin/v1/currencies/${btcId}`, { min_amount: '0.001', max_amount: '2' });
    assert.equal(patched.statusCode, 200, patched.body);
    const after = await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=0.5');
    assert.equal(after.statusCode, 200, after.body);
    assert.equal(rawNumber(after.body, 'min_amount'), '0.001');
    assert.equal(rawNumber(after.body, 'max_amount'), '2');
    // The rate of 0.5 BTC does not depend on the limits.
    assert.equal(rawNumber(after.body, 'rate'), oracle({ from: 'BTC', to: 'ETH', amount: '0.5' }).rate.toFixed());
  });
});
