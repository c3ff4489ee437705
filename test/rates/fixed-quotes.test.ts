import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Decimal } from '../../src/domain/money.js';
import { FixedQuoteTokens, quoteSigningKeys, type FixedQuoteClaim } from '../../src/services/fixed-quote-tokens.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';
import { currencyIds, getRates, oracle, QUOTE_ID, rawNumber, UUID } from './rates-helpers.js';

const TTL_MS = 300_000;

/**
 * A fixed quote's id is a token signed under the quote-signing key (issue 18): it holds the pair,
 * amounts, rates, caller and expiry, so issuing one writes nothing and any process with the key
 * honours it. Orders with a quote_id are in test/orders/order-fixed.test.ts.
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

  /** The claim inside a quote_id, opened by the app's own quote service. */
  const claimOf = (quoteId: string): FixedQuoteClaim => {
    const claim = t.runtime.quotes.openFixedQuote(quoteId);
    assert.ok(typeof claim === 'object', 'the quote_id opens');
    return claim;
  };

  const fixedQuote = async (query: string, headers: Record<string, string> = {}): Promise<{ id: string; body: string }> => {
    const res = await getRates(t, `${query}&rate_type=fixed`, headers);
    assert.equal(res.statusCode, 200, res.body);
    const { quote_id } = res.json<{ quote_id: string }>();
    assert.match(quote_id, QUOTE_ID);
    return { id: quote_id, body: res.body };
  };

  it('a keyed fixed quote holds the pair, amount, rates, its partner and a 300 s expiry', async () => {
    const { id, body } = await fixedQuote('coin_from=BTC&coin_to=ETH&amount=0.5', keyed);
    const claim = claimOf(id);
    assert.match(claim.id, UUID);
    assert.equal(claim.partnerId, partnerId);
    assert.equal(claim.currencyFromId, ids.get('BTC/BTC'));
    assert.equal(claim.currencyToId, ids.get('ETH/ETH'));

    const expected = oracle({ from: 'BTC', to: 'ETH', amount: '0.5', rateType: 'fixed' });
    assert.ok(claim.amountFrom.eq('0.5'), claim.amountFrom.toFixed());
    assert.ok(claim.amountTo.eq(expected.amountTo), `${claim.amountTo.toFixed()} vs ${expected.amountTo.toFixed()}`);
    assert.ok(claim.amountTo.eq(rawNumber(body, 'amount_to')), 'the token holds the published amount_to');
    assert.ok(claim.rate.eq(expected.rate));
    assert.ok(claim.rate.eq(rawNumber(body, 'rate')), 'the token holds the published rate');
    assert.ok(claim.exactRate.eq(expected.exactRate), `${claim.exactRate.toFixed()} vs ${expected.exactRate.toFixed()}`);
    assert.equal(claim.amountToRequested, undefined);
    assert.equal(claim.expiresAtMs - clock.now().getTime(), TTL_MS);
    assert.equal(rawNumber(body, 'expires_in'), String(TTL_MS / 1000));
  });

  it('without an amount the quote is for the pair minimum; a reverse quote keeps the amount_to asked', async () => {
    const { id, body } = await fixedQuote('coin_from=BTC&coin_to=USDT&network_to=TRC20', keyed);
    const claim = claimOf(id);
    const expected = oracle({ from: 'BTC', to: 'USDT/TRC20', rateType: 'fixed' });
    assert.ok(claim.amountFrom.eq(expected.minAmount), claim.amountFrom.toFixed());
    assert.ok(claim.amountFrom.eq(rawNumber(body, 'min_amount')));
    assert.ok(claim.amountTo.eq(expected.amountTo));
    assert.equal(claim.currencyToId, ids.get('USDT/TRC20'));

    const reverse = claimOf((await fixedQuote('coin_from=BTC&coin_to=ETH&amount_to=2', keyed)).id);
    assert.ok(reverse.amountToRequested?.eq('2'), reverse.amountToRequested?.toFixed());
    assert.ok(reverse.amountTo.gte('2'));
  });

  it("a keyed fixed quote names the partner, by X-API-Key or Bearer; an anonymous one names none", async () => {
    const partner = await t.createPartner({ markup_bps: 25 });
    const viaHeader = await fixedQuote('coin_from=ETH&coin_to=BTC&amount=2', { 'x-api-key': partner.apiKey });
    const viaBearer = await fixedQuote('coin_from=ETH&coin_to=BTC&amount=2', { authorization: `Bearer ${partner.apiKey}` });
    const expected = oracle({ from: 'ETH', to: 'BTC', amount: '2', rateType: 'fixed', markupBps: 25 });
    for (const { id } of [viaHeader, viaBearer]) {
      const claim = claimOf(id);
      assert.equal(claim.partnerId, partner.id);
      assert.ok(claim.rate.eq(expected.rate));
      assert.ok(claim.amountTo.eq(expected.amountTo));
    }
    assert.notEqual(claimOf(viaHeader.id).id, claimOf(viaBearer.id).id, 'every quote has its own id');

    const anonymous = await getRates(t, 'coin_from=ETH&coin_to=BTC&amount=2&rate_type=fixed');
    assert.equal(anonymous.statusCode, 200, anonymous.body);
    const body = anonymous.json<{ quote_id: string; expires_in: number }>();
    assert.equal(body.expires_in, 300);
    const claim = claimOf(body.quote_id);
    assert.equal(claim.partnerId, null);
    assert.ok(claim.rate.eq(oracle({ from: 'ETH', to: 'BTC', amount: '2', rateType: 'fixed' }).rate), 'the default markup');
  });

  it('an altered token does not open: any character of the payload or MAC, or its shape', async () => {
    const { id } = await fixedQuote('coin_from=BTC&coin_to=ETH&amount=0.5', keyed);
    const [prefix, payload = '', mac = ''] = id.split('.');
    const flip = (text: string, at: number): string => {
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      const next = alphabet[(alphabet.indexOf(text[at] ?? 'A') + 1) % alphabet.length] ?? 'A';
      return text.slice(0, at) + next + text.slice(at + 1);
    };
    // A payload with another amount (decoded, edited, encoded again) under the original MAC.
    const text = Buffer.from(payload, 'base64url').toString('utf8');
    const edited = Buffer.from(text.replace('|0.5|', '|5|')).toString('base64url');
    assert.notEqual(edited, payload);
    assert.equal(t.runtime.quotes.openFixedQuote(`${prefix}.${edited}.${mac}`), 'forged');
    for (let at = 0; at < payload.length; at += 7) {
      const altered = flip(payload, at);
      // A flip in the last character may only change unused bits: the same bytes, still valid.
      if (Buffer.from(altered, 'base64url').equals(Buffer.from(payload, 'base64url'))) continue;
      assert.equal(t.runtime.quotes.openFixedQuote(`${prefix}.${altered}.${mac}`), 'forged', `payload flipped at ${at}`);
    }
    for (let at = 0; at < mac.length - 1; at++) {
      assert.equal(t.runtime.quotes.openFixedQuote(`${prefix}.${payload}.${flip(mac, at)}`), 'forged', `mac flipped at ${at}`);
    }
    // Another version's prefix on this payload: fq1's MAC context is another, so it is forged there.
    assert.equal(t.runtime.quotes.openFixedQuote(`fq1.${payload}.${mac}`), 'forged');
    for (const shape of ['', 'fq2', `fq3.${payload}.${mac}`, `${prefix}.${payload}`, `${prefix}.${payload}.${mac}.x`, `${prefix}.${payload}.${mac}AA`, `${prefix}.${payload}!.${mac}`, '00000000-0000-4000-8000-000000000000']) {
      assert.equal(t.runtime.quotes.openFixedQuote(shape), 'malformed', shape);
    }
  });

  it('key rotation: a token signed under the previous key still opens; one under an unknown key does not', () => {
    const [oldKey, newKey, strangerKey] = [randomBytes(32), randomBytes(32), randomBytes(32)];
    const claim: Omit<FixedQuoteClaim, 'id'> & { markupBps: number } = {
      partnerId,
      currencyFromId: ids.get('BTC/BTC') ?? '',
      currencyToId: ids.get('ETH/ETH') ?? '',
      amountFrom: new Decimal('0.5'),
      amountTo: new Decimal('12.345678901234567891'),
      amountToRequested: new Decimal('12.3'),
      rate: new Decimal('24.691357802469135782'),
      exactRate: new Decimal('24.69135780246913578246913578246913578246'),
      markupBps: 137,
      expiresAtMs: clock.now().getTime() + TTL_MS,
    };
    const before = new FixedQuoteTokens({ current: oldKey }).issue(claim);
    const rotated = new FixedQuoteTokens({ current: newKey, previous: oldKey });
    const opened = rotated.open(before.token);
    assert.ok(typeof opened === 'object', 'the old token opens');
    assert.deepEqual({ ...opened, id: undefined }, { ...claim, id: undefined });
    assert.equal(opened.id, before.id);
    // New tokens are signed with the new key: they open without the old one.
    const after = rotated.issue(claim);
    assert.equal(typeof new FixedQuoteTokens({ current: newKey }).open(after.token), 'object');
    // Once the previous key is dropped (after FIXED_QUOTE_TTL_SECONDS), old tokens no longer open.
    assert.equal(new FixedQuoteTokens({ current: newKey }).open(before.token), 'forged');
    assert.equal(new FixedQuoteTokens({ current: strangerKey, previous: newKey }).open(before.token), 'forged');
  });

  it('a token of the previous format (fq1, no markup) still opens, without a markup; the markup is signed in fq2 (issue 26.1)', () => {
    const key = randomBytes(32);
    const fields = [
      '00000000-0000-4000-8000-000000000001', partnerId, ids.get('BTC/BTC') ?? '', ids.get('ETH/ETH') ?? '',
      '0.5', '12.3', '', '24.6', '24.61', String(clock.now().getTime() + TTL_MS),
    ];
    const payload = Buffer.from(fields.join('|')).toString('base64url');
    const mac = createHmac('sha256', key).update('fixed quote v1|').update(payload).digest().subarray(0, 16).toString('base64url');
    const opened = new FixedQuoteTokens({ current: key }).open(`fq1.${payload}.${mac}`);
    assert.ok(typeof opened === 'object', 'the fq1 token opens');
    assert.equal(opened.markupBps, undefined);
    assert.ok(opened.amountFrom.eq('0.5'));
    // An fq2 token carries its markup, and a payload with another markup does not open.
    const tokens = new FixedQuoteTokens({ current: key });
    const issued = tokens.issue({
      partnerId: null,
      currencyFromId: fields[2] ?? '',
      currencyToId: fields[3] ?? '',
      amountFrom: new Decimal('0.5'),
      amountTo: new Decimal('12.3'),
      amountToRequested: undefined,
      rate: new Decimal('24.6'),
      exactRate: new Decimal('24.61'),
      markupBps: 0,
      expiresAtMs: clock.now().getTime() + TTL_MS,
    });
    const reopened = tokens.open(issued.token);
    assert.ok(typeof reopened === 'object');
    assert.equal(reopened.markupBps, 0);
    const [prefix, body = '', sent = ''] = issued.token.split('.');
    const raised = Buffer.from(Buffer.from(body, 'base64url').toString('utf8').replace(/\|0$/, '|300')).toString('base64url');
    assert.equal(tokens.open(`${prefix}.${raised}.${sent}`), 'forged');
  });

  it('QUOTE_SIGNING_KEY unset: derived from SECRETS_KEY, so processes sharing it agree; set, it wins', () => {
    const secretsKey = randomBytes(32);
    const derived = quoteSigningKeys({ secretsKey, quoteSigningKey: undefined, quoteSigningKeyPrevious: undefined });
    assert.deepEqual(quoteSigningKeys({ secretsKey, quoteSigningKey: undefined, quoteSigningKeyPrevious: undefined }), derived);
    assert.notDeepEqual(derived.current, secretsKey, 'not the encryption key itself');
    assert.equal(derived.current.length, 32);
    const own = randomBytes(32);
    const previous = randomBytes(32);
    assert.deepEqual(quoteSigningKeys({ secretsKey, quoteSigningKey: own, quoteSigningKeyPrevious: previous }), { current: own, previous });
  });

  it('every fixed quote is a new token, even for the same request at the same moment', async () => {
    const first = await fixedQuote('coin_from=BTC&coin_to=ETH&amount=0.5', keyed);
    const second = await fixedQuote('coin_from=BTC&coin_to=ETH&amount=0.5', keyed);
    assert.notEqual(first.id, second.id);
    assert.notEqual(claimOf(first.id).id, claimOf(second.id).id);
  });
});
