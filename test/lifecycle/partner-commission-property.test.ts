import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { Decimal } from '../../src/domain/money.js';
import { fixedRatePayout } from '../../src/domain/pricing/fixed-rate-payout.js';
import { partnerCommission } from '../../src/domain/pricing/partner-commission.js';
import {
  BTC_REFUND,
  ETH_RECIPIENT,
  depositAndRun,
  exactJson,
  getOrder,
  payoutRows,
  startHarness,
  storedOrder,
  type Harness,
  type OrderJson,
} from './lifecycle-helpers.js';
import { ManualClock } from '../helpers/test-app.js';

/**
 * Issue 26.1, as a property: whatever markups a partner sets and whenever it changes them
 * (between a quote and its order, between an order and its deposit), every order is paid at the
 * markup it was priced with (a fixed order's quote's, a float order's creation's) and earns that
 * markup's share of what was paid, so the sum of partner_fee over the orders, and GET
 * /partner/stats, equal the markup share of what was actually paid.
 */

const DEFAULT_MARKUP_BPS = 50;

type Step =
  | { kind: 'markup'; bps: number }
  | { kind: 'quote'; amount: string; keyed: boolean }
  | { kind: 'create'; fixed: boolean; amount: string }
  | { kind: 'settle'; factor: string };

const AMOUNTS = ['0.5', '0.31', '1.23456789'];

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('markup' as const), bps: fc.integer({ min: 0, max: 300 }) }),
  fc.record({ kind: fc.constant('quote' as const), amount: fc.constantFrom(...AMOUNTS), keyed: fc.boolean() }),
  fc.record({ kind: fc.constant('create' as const), fixed: fc.boolean(), amount: fc.constantFrom(...AMOUNTS) }),
  // A float order's deposit: the expected amount times this (what was actually paid differs).
  fc.record({ kind: fc.constant('settle' as const), factor: fc.constantFrom('1', '0.8', '1.5', '2') }),
);

interface Tracked {
  id: string;
  fixed: boolean;
  /** The markup the order must be priced with: its quote's, or the partner's at its creation. */
  markup: number;
  /** A fixed order's quoted payout. */
  quotedAmountTo?: string;
}

describe('partner_fee under markups changed at random moments (issue 26.1)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ DEFAULT_MARKUP_BPS: String(DEFAULT_MARKUP_BPS) }, new ManualClock());
  });
  after(() => h.t.close());

  it('every order is paid and earns at its priced markup; the sums equal the markup share of what was paid', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 300 }), fc.array(step, { minLength: 2, maxLength: 8 }), async (initial, steps) => {
        const partner = await h.t.createPartner({ markup_bps: initial });
        const key = { 'x-api-key': partner.apiKey };
        let markup = initial;
        const quotes: Array<{ id: string; amount: string; amountTo: string; markup: number }> = [];
        const open: Tracked[] = [];
        const settled: Tracked[] = [];

        const setMarkup = async (bps: number): Promise<void> => {
          const res = await h.t.admin('PATCH', `/admin/v1/partners/${partner.id}`, { markup_bps: bps });
          assert.equal(res.statusCode, 200, res.body);
          markup = bps;
        };
        const create = async (body: Record<string, unknown>): Promise<OrderJson> => {
          const res = await h.t.app.inject({
            method: 'POST',
            url: '/api/v1/partner/orders',
            headers: { ...key, 'content-type': 'application/json' },
            payload: JSON.stringify({
              coin_from: 'BTC', network_from: 'BTC', coin_to: 'ETH', network_to: 'ETH',
              recipient_address: ETH_RECIPIENT, refund_address: BTC_REFUND, ...body,
            }).replace(/"amount_from":"([0-9.]+)"/, '"amount_from":$1'),
          });
          assert.equal(res.statusCode, 201, res.body);
          return exactJson<OrderJson>(res);
        };
        const settle = async (order: Tracked, factor: string): Promise<void> => {
          const shown = await getOrder({ ...h, partner }, order.id);
          const amount = order.fixed ? shown.amount_from_expected : new Decimal(shown.amount_from_expected).times(factor).toDecimalPlaces(8).toFixed();
          const done = await depositAndRun({ ...h, partner }, order.id, 'completed', { amount });
          assert.equal(done.status, 'completed');
          settled.push(order);
        };

        for (const s of steps) {
          switch (s.kind) {
            case 'markup':
              await setMarkup(s.bps);
              break;
            case 'quote': {
              const res = await h.t.app.inject({
                method: 'GET',
                url: `/api/v1/partner/rates?coin_from=BTC&coin_to=ETH&amount=${s.amount}&rate_type=fixed`,
                headers: s.keyed ? key : {},
              });
              assert.equal(res.statusCode, 200, res.body);
              const quoted = exactJson<{ quote_id: string; amount_to: string }>(res);
              quotes.push({ id: quoted.quote_id, amount: s.amount, amountTo: quoted.amount_to, markup: s.keyed ? markup : DEFAULT_MARKUP_BPS });
              break;
            }
            case 'create': {
              const quote = s.fixed ? quotes.shift() : undefined;
              if (quote !== undefined) {
                const order = await create({ amount_from: quote.amount, rate_type: 'fixed', quote_id: quote.id });
                open.push({ id: order.id, fixed: true, markup: quote.markup, quotedAmountTo: quote.amountTo });
              } else {
                const order = await create({ amount_from: s.amount, rate_type: 'float' });
                open.push({ id: order.id, fixed: false, markup });
              }
              break;
            }
            case 'settle': {
              const order = open.shift();
              if (order !== undefined) await settle(order, s.factor);
              break;
            }
          }
        }
        // The markup changes once more before the rest are paid.
        await setMarkup((markup + 137) % 301);
        for (const order of open.splice(0)) await settle(order, '1');

        const btc = h.t.runtime.prices.getPriceUsd('BTC');
        const eth = h.t.runtime.prices.getPriceUsd('ETH');
        assert.ok(btc !== undefined && eth !== undefined);
        let fees = new Decimal(0);
        let shares = new Decimal(0);
        for (const order of settled) {
          const shown = await getOrder({ ...h, partner }, order.id);
          const stored = await storedOrder(h, order.id);
          const received = new Decimal(shown.amount_from_received ?? 'NaN');
          assert.equal(stored.markup_bps, order.markup, `order ${order.id}: stored markup`);
          // What was paid was priced at that markup.
          const [payout] = await payoutRows(h, order.id);
          const { catalog, quotes: pricing } = h.t.runtime;
          const from = catalog.byId(stored.currency_from_id);
          const to = catalog.byId(stored.currency_to_id);
          assert.ok(from !== undefined && to !== undefined && payout !== undefined);
          // A fixed order: its quote's exact rate (the quote's own amount_to, to the last unit).
          if (order.fixed) assert.equal(shown.amount_to_expected, order.quotedAmountTo);
          const paidAt = order.fixed
            ? fixedRatePayout(received, new Decimal(stored.exact_rate), to.decimals)
            : pricing.pricePair(from, to, { amount: received, rateType: 'float', markupBps: order.markup }).amountTo;
          assert.ok(new Decimal(payout.amount).eq(paidAt), `order ${order.id}: paid ${payout.amount}, priced at ${order.markup} bps ${paidAt.toFixed()}`);
          // Its markup share: the gross conversion of what was received, times that markup.
          const share = partnerCommission({ received, priceFromUsd: btc, priceToUsd: eth, markupBps: order.markup, toDecimals: to.decimals });
          const fee = shown.partner_fee as { amount: string } | null;
          assert.ok(fee !== null, `order ${order.id}: partner_fee shown`);
          fees = fees.plus(fee.amount);
          shares = shares.plus(share.amount);
        }
        assert.equal(fees.toFixed(), shares.toFixed(), 'sum of partner_fee = markup share of what was paid');
        const res = await h.t.app.inject({ method: 'GET', url: '/api/v1/partner/stats', headers: key });
        assert.equal(res.statusCode, 200, res.body);
        const stats = exactJson<{ commission: { by_coin: Array<{ coin: string; amount: string }> } }>(res);
        const eths = stats.commission.by_coin.find((row) => row.coin === 'ETH');
        assert.equal(new Decimal(eths?.amount ?? '0').toFixed(), shares.toFixed(), 'GET /partner/stats sums the same');
      }),
      { includeErrorInReport: true, numRuns: Number(process.env.COMMISSION_PROPERTY_RUNS ?? 6), ...(process.env.COMMISSION_PROPERTY_SEED === undefined ? {} : { seed: Number(process.env.COMMISSION_PROPERTY_SEED) }) },
    );
  });
});
