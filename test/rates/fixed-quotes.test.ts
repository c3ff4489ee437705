import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Decimal } from '../../src/domain/money.js';
import { CurrencyCatalog } from '../../src/services/currency-catalog.js';
import { QuoteService } from '../../src/services/quote-service.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';
import { currencyIds, getRates, oracle, rawNumber, UUID } from './rates-helpers.js';

const TTL_MS = 300_000;
const HOUR_MS = 3_600_000;

/**
 * A keyed fixed quote is stored (DESIGN §3: any process can honour its quote_id until it
 * expires) and purged an hour after it expired; an anonymous one is not stored at all (no order
 * could ever use it, docs/decisions.md). The clock is manual; the background price poll is pushed out
 * and prices are refreshed explicitly after the clock moves.
 */
describe('fixed quotes', () => {
  const clock = new ManualClock(new Date('2026-03-01T12:00:00.000Z'));
  let t: TestApp;
  let ids: Map<string, string>;
  /** A partner at the default markup, so its quotes price as the oracle's default. */
  let keyed: Record<string, string>;
  let partnerId: string;
  before(async () => {
    t = await buildTestApp({ clock, env: { PRICE_POLL_SECONDS: '3600' } });
    ids = await currencyIds(t);
    const partner = await t.createPartner({ markup_bps: 50 });
    keyed = { 'x-api-key': partner.apiKey };
    partnerId = partner.id;
  });
  after(() => t.close());

  const findQuote = (id: string) => t.db.handle.db.selectFrom('fixed_quotes').selectAll().where('id', '=', id).executeTakeFirst();

  /** Re-polls the static prices at the current (moved) time, as PUT /admin/v1/prices does. */
  const refreshPrices = async (): Promise<void> => {
    const res = await t.admin('PUT', '/admin/v1/prices/BTC', { price_usd: '67000' });
    assert.equal(res.statusCode, 200, res.body);
  };

  const fixedQuote = async (query: string, headers: Record<string, string> = {}): Promise<{ id: string; body: string }> => {
    const res = await getRates(t, `${query}&rate_type=fixed`, headers);
    assert.equal(res.statusCode, 200, res.body);
    const { quote_id } = res.json<{ quote_id: string }>();
    assert.match(quote_id, UUID);
    return { id: quote_id, body: res.body };
  };

  it('a keyed fixed quote is stored with the pair, amount, rates, its partner and a 300 s expiry', async () => {
    const { id, body } = await fixedQuote('coin_from=BTC&coin_to=ETH&amount=0.5', keyed);
    const row = await findQuote(id);
    assert.ok(row !== undefined, 'quote row exists');
    assert.equal(row.partner_id, partnerId);
    assert.equal(row.currency_from_id, ids.get('BTC/BTC'));
    assert.equal(row.currency_to_id, ids.get('ETH/ETH'));

    const expected = oracle({ from: 'BTC', to: 'ETH', amount: '0.5', rateType: 'fixed' });
    assert.ok(new Decimal(row.amount_from).eq('0.5'), row.amount_from);
    assert.ok(new Decimal(row.amount_to).eq(expected.amountTo), `${row.amount_to} vs ${expected.amountTo.toFixed()}`);
    assert.ok(new Decimal(row.rate).eq(expected.rate), row.rate);
    assert.ok(new Decimal(row.rate).eq(rawNumber(body, 'rate')), 'stored rate is the published one');
    assert.ok(new Decimal(row.exact_rate).eq(expected.exactRate), `${row.exact_rate} vs ${expected.exactRate.toFixed()}`);

    assert.equal(row.created_at.getTime(), clock.now().getTime());
    assert.equal(row.expires_at.getTime() - row.created_at.getTime(), TTL_MS);
    assert.equal(rawNumber(body, 'expires_in'), String(TTL_MS / 1000));
  });

  it('without an amount the quote is for the pair minimum', async () => {
    const { id, body } = await fixedQuote('coin_from=BTC&coin_to=USDT&network_to=TRC20', keyed);
    const row = await findQuote(id);
    assert.ok(row !== undefined);
    const expected = oracle({ from: 'BTC', to: 'USDT/TRC20', rateType: 'fixed' });
    assert.ok(new Decimal(row.amount_from).eq(expected.minAmount), row.amount_from);
    assert.ok(new Decimal(row.amount_from).eq(rawNumber(body, 'min_amount')));
    assert.ok(new Decimal(row.amount_to).eq(expected.amountTo));
    assert.equal(row.currency_to_id, ids.get('USDT/TRC20'));
  });

  it("a keyed fixed quote records the partner's id", async () => {
    const partner = await t.createPartner({ markup_bps: 25 });
    const viaHeader = await fixedQuote('coin_from=ETH&coin_to=BTC&amount=2', { 'x-api-key': partner.apiKey });
    const viaBearer = await fixedQuote('coin_from=ETH&coin_to=BTC&amount=2', { authorization: `Bearer ${partner.apiKey}` });
    for (const { id } of [viaHeader, viaBearer]) {
      const row = await findQuote(id);
      assert.ok(row !== undefined);
      assert.equal(row.partner_id, partner.id);
      const expected = oracle({ from: 'ETH', to: 'BTC', amount: '2', rateType: 'fixed', markupBps: 25 });
      assert.ok(new Decimal(row.rate).eq(expected.rate));
      assert.ok(new Decimal(row.amount_to).eq(expected.amountTo));
    }
  });

  const countQuotes = async () =>
    Number((await t.db.handle.db.selectFrom('fixed_quotes').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  it('a float quote stores nothing', async () => {
    const before = await countQuotes();
    const res = await getRates(t, 'coin_from=BTC&coin_to=ETH&amount=0.5');
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(await countQuotes(), before);
  });

  it('an anonymous fixed quote stores nothing and carries no quote_id', async () => {
    const before = await countQuotes();
    for (const query of ['coin_from=BTC&coin_to=ETH&amount=0.5', 'coin_from=ETH&coin_to=BTC', 'coin_from=BTC&coin_to=USDT&network_to=TRC20']) {
      const res = await getRates(t, `${query}&rate_type=fixed`);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json<Record<string, unknown>>();
      assert.equal(body.rate_type, 'fixed');
      assert.equal(body.expires_in, null);
      assert.equal('quote_id' in body, false);
    }
    assert.equal(await countQuotes(), before);
  });

  it('purgeExpired removes quotes that expired over an hour ago and keeps the others', async () => {
    // The service's purge needs only its database and clock: a second instance on the app's
    // database and clock does what the app's hourly timer does.
    const catalog = new CurrencyCatalog(t.db.handle.db, 60_000, () => undefined);
    const service = new QuoteService(catalog, { getPriceUsd: () => undefined }, t.config.pricing, t.db.handle.db, clock);

    // Clean slate for exact counts: whatever the earlier tests stored expires with `old` below.
    const old = await fixedQuote('coin_from=BTC&coin_to=ETH&amount=1', keyed);
    const oldRow = await findQuote(old.id);
    assert.ok(oldRow !== undefined);
    const oldExpiry = oldRow.expires_at.getTime();

    clock.advance(30 * 60_000);
    await refreshPrices();
    const recent = await fixedQuote('coin_from=BTC&coin_to=ETH&amount=1', keyed);

    // Exactly one hour after `old` expired: not yet older than the hour.
    clock.set(new Date(oldExpiry + HOUR_MS));
    assert.equal(await service.purgeExpired(), 0);
    assert.ok((await findQuote(old.id)) !== undefined);

    clock.set(new Date(oldExpiry + HOUR_MS + 1));
    await refreshPrices();
    const live = await fixedQuote('coin_from=BTC&coin_to=ETH&amount=1', keyed);
    const removed = await service.purgeExpired();
    // `old` and the four quotes of the earlier tests, all created at the starting time.
    assert.equal(removed, 5);
    assert.equal(await findQuote(old.id), undefined);
    // `recent` expired 30 minutes ago (kept for support), `live` has not expired.
    const recentRow = await findQuote(recent.id);
    assert.ok(recentRow !== undefined);
    assert.ok(recentRow.expires_at.getTime() < clock.now().getTime());
    assert.ok((await findQuote(live.id)) !== undefined);
    // Idempotent.
    assert.equal(await service.purgeExpired(), 0);

    // Once `recent` is over an hour past expiry it goes too; `live` still stays until its turn.
    clock.set(new Date(recentRow.expires_at.getTime() + HOUR_MS + 1));
    assert.equal(await service.purgeExpired(), 1);
    assert.equal(await findQuote(recent.id), undefined);
    assert.ok((await findQuote(live.id)) !== undefined);
  });
});
