import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'lossless-json';
import { Decimal } from '../../src/domain/money.js';
import { quoteAmount } from '../../src/domain/pricing/index.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';
import { DEFAULT_MARKUP_BPS, FIXED_PREMIUM_BPS, getRates, SEED_PRICES, seedTerms, SPREAD_BPS } from './rates-helpers.js';

/**
 * Quotes that say when and what they cost (docs/contract.md §10.6, issue 27.3): expires_at, network_fee
 * and eta_seconds on every quote, float and fixed, with and without a key. The clock stands
 * still unless a test moves it; prices are the static table's, observed at the one poll at start
 * (PRICE_POLL_SECONDS 3600), so a float quote's prices are fresh until that instant plus
 * PRICE_MAX_AGE_SECONDS (60 by default).
 */

interface Quote {
  rate_type: string;
  amount_to: string;
  expires_in: string | null;
  expires_at: string;
  network_fee: { amount: string; coin: string; usd: string };
  eta_seconds: string;
  quote_id?: string;
}

/** The body with every number kept as its literal (lossless), so exact decimals compare as text. */
const exact = (body: string): Quote => parse(body, null, (literal: string) => literal) as Quote;

/**
 * Seed catalog facts copied by hand (migrations 0002 and 0045), so the expectations do not come
 * from the code under test: confirmations of the deposit currency, block time of its chain (ms),
 * payout allowance of the payout chain (s).
 */
const ETA = {
  'BTC->ETH': 2 * 600 + 72, // 2 confirmations × 600 s + Ethereum's 72 s
  'ETH->USDT/TRC20': 12 * 12 + 63, // 12 × 12 s + Tron's 63 s
  'USDT/TRC20->TRX': 20 * 3 + 63,
  'SOL->BTC': Math.ceil(32 * 0.4) + 660, // 12.8 s rounded up + Bitcoin's 660 s
  'BNB/BEP20->XRP': Math.ceil(15 * 0.75) + 64,
};

describe('GET /api/v1/partner/rates: expires_at, network_fee, eta_seconds (docs/contract.md §10.6)', () => {
  const clock = new ManualClock(new Date('2026-05-01T12:00:00.000Z'));
  const started = clock.now();
  let t: TestApp;
  let apiKey: string;
  before(async () => {
    t = await buildTestApp({ clock, env: { PRICE_POLL_SECONDS: '3600', CACHE_REFRESH_MS: '3600000' } });
    apiKey = (await t.createPartner({ markup_bps: 0 })).apiKey;
  });
  after(() => t.close());

  const quote = async (query: string, key?: string): Promise<Quote> => {
    const res = await getRates(t, query, key === undefined ? {} : { 'x-api-key': key });
    assert.equal(res.statusCode, 200, res.body);
    return exact(res.body);
  };

  it('network_fee is the payout fee in coin_to, already deducted from amount_to, with its USD value', async () => {
    for (const key of [undefined, apiKey]) {
      for (const rateType of ['float', 'fixed'] as const) {
        const body = await quote(`coin_from=BTC&coin_to=ETH&amount=1&rate_type=${rateType}`, key);
        // ETH's payout_fee (0.0005) at the static ETH price (3500 USD).
        assert.deepEqual(body.network_fee, { amount: '0.0005', coin: 'ETH', usd: '1.75' });
        // Deducted: the same quote with no payout fee pays exactly the fee more.
        const noFee = quoteAmount(
          {
            from: seedTerms('BTC'),
            to: { ...seedTerms('ETH'), payoutFee: new Decimal(0) },
            priceFromUsd: new Decimal(SEED_PRICES.BTC ?? ''),
            priceToUsd: new Decimal(SEED_PRICES.ETH ?? ''),
            rateType,
            markupBps: key === undefined ? DEFAULT_MARKUP_BPS : 0,
            settings: { spreadBps: SPREAD_BPS, fixedPremiumBps: FIXED_PREMIUM_BPS },
          },
          new Decimal(1),
        );
        assert.ok(noFee.ok);
        assert.equal(new Decimal(body.amount_to).plus(body.network_fee.amount).toFixed(), noFee.amountTo.toFixed(), `${rateType} ${key ?? 'anonymous'}`);
      }
    }
    // A token pays its fee in the token; a sub-dollar coin's USD value keeps its digits.
    assert.deepEqual((await quote('coin_from=ETH&coin_to=USDT&network_to=TRC20&amount=1')).network_fee, { amount: '1.5', coin: 'USDT', usd: '1.5' });
    assert.deepEqual((await quote('coin_from=USDT&network_from=TRC20&coin_to=TRX&amount=100')).network_fee, { amount: '1', coin: 'TRX', usd: '0.12' });
    assert.deepEqual((await quote('coin_from=BTC&coin_to=XLM&amount=0.01')).network_fee, { amount: '0.01', coin: 'XLM', usd: '0.0011' });
  });

  it('a reverse quote (amount_to) carries the same fee', async () => {
    const body = await quote('coin_from=BTC&coin_to=ETH&amount_to=2');
    assert.deepEqual(body.network_fee, { amount: '0.0005', coin: 'ETH', usd: '1.75' });
  });

  it('eta_seconds: deposit confirmations × the deposit chain block time + the payout chain allowance, per pair', async () => {
    const cases: [string, number][] = [
      ['coin_from=BTC&coin_to=ETH', ETA['BTC->ETH']],
      ['coin_from=ETH&coin_to=USDT&network_to=TRC20', ETA['ETH->USDT/TRC20']],
      ['coin_from=USDT&network_from=TRC20&coin_to=TRX', ETA['USDT/TRC20->TRX']],
      ['coin_from=SOL&coin_to=BTC', ETA['SOL->BTC']],
      ['coin_from=BNB&coin_to=XRP', ETA['BNB/BEP20->XRP']],
    ];
    for (const [query, eta] of cases) {
      for (const key of [undefined, apiKey]) {
        for (const rateType of ['float', 'fixed']) {
          const body = await quote(`${query}&rate_type=${rateType}`, key);
          assert.equal(body.eta_seconds, String(eta), `${query} ${rateType}`);
        }
      }
    }
  });

  it('the ETA follows the catalog: more confirmations on the deposit currency, a longer ETA', async () => {
    const btc = (await t.admin('GET', '/admin/v1/currencies')).json<{ id: string; coin: string }[]>().find((row) => row.coin === 'BTC');
    assert.ok(btc !== undefined);
    const patched = await t.admin('PATCH', `/admin/v1/currencies/${btc.id}`, { min_confirmations: 3 });
    assert.equal(patched.statusCode, 200, patched.body);
    try {
      assert.equal((await quote('coin_from=BTC&coin_to=ETH')).eta_seconds, String(3 * 600 + 72));
    } finally {
      await t.admin('PATCH', `/admin/v1/currencies/${btc.id}`, { min_confirmations: 2 });
    }
  });

  it('fixed: expires_at is the quote_id expiry, expires_in seconds from now', async () => {
    for (const key of [undefined, apiKey]) {
      const body = await quote('coin_from=BTC&coin_to=ETH&amount=0.1&rate_type=fixed', key);
      assert.equal(body.expires_in, '300');
      assert.equal(body.expires_at, new Date(clock.now().getTime() + 300_000).toISOString());
    }
  });

  it('float: expires_at is when the prices used stop being fresh, and it does not move while they stay the same', async () => {
    const freshUntil = new Date(started.getTime() + 60_000).toISOString();
    for (const key of [undefined, apiKey]) {
      const body = await quote('coin_from=BTC&coin_to=ETH&amount=0.1', key);
      assert.equal(body.expires_in, null);
      assert.equal(body.expires_at, freshUntil);
    }
    clock.advance(45_000);
    try {
      assert.equal((await quote('coin_from=ETH&coin_to=BTC&amount=1')).expires_at, freshUntil);
      // A fixed quote asked now expires 300 s from now, not with the prices.
      assert.equal((await quote('coin_from=ETH&coin_to=BTC&amount=1&rate_type=fixed')).expires_at, new Date(clock.now().getTime() + 300_000).toISOString());
      // A new poll observes the prices again: the bound moves with it.
      await t.runtime.prices.refresh();
      assert.equal((await quote('coin_from=ETH&coin_to=BTC&amount=1')).expires_at, new Date(clock.now().getTime() + 60_000).toISOString());
    } finally {
      clock.set(started);
    }
  });

  it('every field is in the OpenAPI document of the 200 answer', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json<{
      paths: Record<string, { get: { responses: Record<string, { content: Record<string, { schema: { properties: Record<string, unknown>; required: string[] } }> }> } }>;
    }>();
    const schema = doc.paths['/api/v1/partner/rates']?.get.responses['200']?.content['application/json']?.schema;
    assert.ok(schema !== undefined);
    for (const field of ['expires_at', 'network_fee', 'eta_seconds']) {
      assert.ok(field in schema.properties, field);
      assert.ok(schema.required.includes(field), field);
    }
  });
});
