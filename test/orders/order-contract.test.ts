import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Decimal } from '../../src/domain/money.js';
import type { LightMyRequestResponse } from 'fastify';
import { validateAddress, validateMemo } from '../../src/domain/addresses/index.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';
import { assertPlainDecimal, currencyIds, getRates, oracle, rawNumber, UUID } from '../rates/rates-helpers.js';

/**
 * POST /api/v1/partner/orders: the Order object of spec 2.3, field by field, for each deposit
 * strategy (hd, memo, pool), on the embedded default's demo wallet.
 */

const ETH_ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const BTC_ADDRESS = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const XRP_ADDRESS = 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh';
const MARKUP_BPS = 30;
const WINDOW_MS = 30 * 60 * 1000;

const BTC_ETH = {
  coin_from: 'BTC',
  network_from: 'BTC',
  coin_to: 'ETH',
  network_to: 'ETH',
  amount_from: 0.1,
  rate_type: 'float',
  recipient_address: ETH_ADDRESS,
};

/** Spec 2.3, in order. */
const SPEC_KEYS = [
  'id', 'short_id', 'status', 'created_at', 'expires_at', 'coin_from', 'network_from', 'coin_to', 'network_to',
  'amount_from_expected', 'amount_to_expected', 'rate_type', 'rate_quoted', 'deposit_address', 'deposit_address_tag',
  'recipient_address', 'deposit_txid', 'deposit_confirmations', 'deposit_confirmations_required', 'payout_txid',
];
/** The documented extensions (order-view.ts, docs/contract.md §4): all null until the lifecycle fills them. */
const EXTENSION_KEYS = ['amount_from_received', 'refund_txid', 'status_reason'];
/** Partner API v1.1 (docs/contract.md §7): additive fields, set at creation. */
const V11_KEYS = ['deposit_uri', 'sandbox', 'actions', 'refund_hold_until', 'partner_fee'];
/** docs/contract.md §10.1 (issue 26.2): what was paid and where, null until it happens or when not given. */
const PAID_KEYS = ['updated_at', 'amount_to_final', 'rate_final', 'amount_refunded', 'recipient_address_tag', 'refund_address', 'refund_address_tag'];
/** docs/contract.md §10.6 (issue 27.3): what the quote told of cost and time, set at creation. */
const V12_QUOTE_KEYS = ['network_fee', 'eta_seconds'];
/** docs/contract.md §10.8 (issue 27.5): the partner's own reference and string map; null and {} when not given. */
const METADATA_KEYS = ['external_id', 'metadata'];
/** docs/contract.md §10.10 (issue 27.7): the end user's status page, set at creation. */
const V12_LINK_KEYS = ['status_url'];
/** docs/contract.md §10.11 (issue 35): the order's version, 0 at creation. */
const V12_VERSION_KEYS = ['version'];

type Order = Record<string, unknown> & {
  id: string;
  short_id: string;
  status: string;
  created_at: string;
  expires_at: string;
  deposit_address: string;
  deposit_address_tag: string | null;
  deposit_uri: string | null;
};

function postOrder(t: TestApp, apiKey: string, body: object | string): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/partner/orders',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function created(res: LightMyRequestResponse): Order {
  assert.equal(res.statusCode, 201, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  return res.json<Order>();
}

describe('POST /partner/orders: the Order contract', () => {
  const clock = new ManualClock(new Date('2026-04-01T09:30:00.000Z'));
  let t: TestApp;
  let partner: { id: string; apiKey: string; keyId: string };
  let demoWallet: { addresses: Record<string, string> };
  before(async () => {
    t = await buildTestApp({ clock, env: { WORKER: 'off', PRICE_POLL_SECONDS: '3600' } });
    partner = await t.createPartner({ markup_bps: MARKUP_BPS, rate_limit_per_minute: 100_000 });
    demoWallet = JSON.parse(readFileSync(path.join(t.config.dataDir, 'demo-wallet.json'), 'utf8')) as typeof demoWallet;
  });
  after(() => t.close());

  const db = () => t.db.handle.db;

  describe('BTC -> ETH, float', () => {
    let res: LightMyRequestResponse;
    let order: Order;
    before(async () => {
      res = await postOrder(t, partner.apiKey, BTC_ETH);
      order = created(res);
    });

    it('answers 201 with exactly the spec 2.3 keys plus the documented extensions', () => {
      assert.deepEqual(Object.keys(order).sort(), [...SPEC_KEYS, ...EXTENSION_KEYS, ...V11_KEYS, ...PAID_KEYS, ...V12_QUOTE_KEYS, ...METADATA_KEYS, ...V12_LINK_KEYS, ...V12_VERSION_KEYS].sort());
      assert.match(String(order['status_url']), /^\/status\/[A-Za-z0-9_-]{32}$/);
      // A live key's order (docs/contract.md §7.6).
      assert.equal(order.sandbox, false);
      for (const key of EXTENSION_KEYS) assert.equal(order[key], null, key);
      // Nothing paid yet, no tag and no refund address given; updated_at is the creation.
      for (const key of PAID_KEYS.filter((name) => name !== 'updated_at')) assert.equal(order[key], null, key);
      assert.equal(order.updated_at, order.created_at);
      assert.equal(order.external_id, null);
      assert.deepEqual(order.metadata, {});
      // The end user's address is the operator's only (docs/contract.md §10.8).
      assert.ok(!('end_user_ip' in order));
      // Echoed request fields outside the shape are not returned (spec 2.3; docs/contract.md §10.1 adds the addresses).
      assert.ok(!('quote_id' in order));
    });

    it('identity, status and the echoed request', () => {
      assert.match(order.id, UUID);
      assert.match(order.short_id, /^EX-[A-Z0-9]{6}$/);
      assert.equal(order.status, 'waiting_deposit');
      assert.equal(order.coin_from, 'BTC');
      assert.equal(order.network_from, 'BTC');
      assert.equal(order.coin_to, 'ETH');
      assert.equal(order.network_to, 'ETH');
      assert.equal(order.rate_type, 'float');
      assert.equal(order.recipient_address, ETH_ADDRESS);
    });

    it('created_at is now and expires_at exactly 30 minutes later, ISO 8601 UTC', () => {
      assert.equal(order.created_at, clock.now().toISOString());
      assert.equal(order.created_at, '2026-04-01T09:30:00.000Z');
      assert.match(order.expires_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(Date.parse(order.expires_at) - Date.parse(order.created_at), WINDOW_MS);
    });

    it('deposit and payout details are null, confirmations required = BTC min_confirmations (2)', async () => {
      assert.equal(order.deposit_txid, null);
      assert.equal(order.deposit_confirmations, null);
      assert.equal(order.payout_txid, null);
      assert.equal(order.deposit_confirmations_required, 2);
      const currencies = await t.app.inject({ method: 'GET', url: '/api/v1/currencies' });
      const btc = currencies.json<{ coin: string; network: string; min_confirmations: number }[]>().find((c) => c.coin === 'BTC');
      assert.equal(order.deposit_confirmations_required, btc?.min_confirmations);
    });

    it('the deposit address is a valid bech32 P2WPKH address with no tag', () => {
      assert.match(order.deposit_address, /^bc1q[02-9ac-hj-np-z]{38}$/);
      assert.deepEqual(validateAddress('bitcoin', order.deposit_address), { ok: true });
      assert.equal(order.deposit_address_tag, null);
      // BIP-21 for the expected amount (docs/contract.md §7.4).
      assert.equal(order.deposit_uri, `bitcoin:${order.deposit_address}?amount=0.1`);
    });

    it('rate_quoted and amount_to_expected are what /partner/rates quotes the same key for the same amount', async () => {
      const quote = await getRates(t, 'coin_from=BTC&network_from=BTC&coin_to=ETH&network_to=ETH&amount=0.1', {
        'x-api-key': partner.apiKey,
      });
      assert.equal(quote.statusCode, 200, quote.body);
      assert.equal(rawNumber(res.body, 'rate_quoted'), rawNumber(quote.body, 'rate'));
      const expected = oracle({ from: 'BTC', to: 'ETH', amount: '0.1', markupBps: MARKUP_BPS });
      assert.equal(rawNumber(res.body, 'rate_quoted'), expected.rate.toFixed());
      assert.equal(rawNumber(res.body, 'amount_to_expected'), expected.amountTo.toFixed());
      // Never more than the amount at the published rate (the rate is rounded down, never up).
      assert.ok(new Decimal(expected.amountTo).lte(new Decimal('0.1').times(expected.exactRate)));
    });

    it('amounts are exact JSON numbers: no exponent, no more digits than the coin allows', () => {
      assert.equal(rawNumber(res.body, 'amount_from_expected'), '0.1');
      assertPlainDecimal(rawNumber(res.body, 'amount_from_expected'), 8, 'amount_from_expected');
      assertPlainDecimal(rawNumber(res.body, 'amount_to_expected'), 18, 'amount_to_expected');
      assertPlainDecimal(rawNumber(res.body, 'rate_quoted'), 18, 'rate_quoted');
      assert.ok(new Decimal(rawNumber(res.body, 'amount_to_expected')).gt(0));
    });

    it('stores the order, its deposit address and one creation event (null -> waiting_deposit)', async () => {
      const row = await db().selectFrom('orders').selectAll().where('id', '=', order.id).executeTakeFirstOrThrow();
      assert.equal(row.partner_id, partner.id);
      assert.equal(row.status, 'waiting_deposit');
      assert.equal(row.short_id, order.short_id);
      assert.ok(new Decimal(row.amount_from_expected).eq('0.1'));
      assert.ok(new Decimal(row.amount_to_expected).eq(rawNumber(res.body, 'amount_to_expected')));
      assert.ok(new Decimal(row.rate_quoted).eq(rawNumber(res.body, 'rate_quoted')));
      assert.equal(row.deposit_address, order.deposit_address);
      assert.equal(row.recipient_address_tag, null);
      assert.equal(row.refund_address, null);
      assert.equal(row.quote_id, null);

      const events = await db().selectFrom('order_events').selectAll().where('order_id', '=', order.id).execute();
      assert.equal(events.length, 1);
      assert.equal(events[0]?.from_status, null);
      assert.equal(events[0]?.to_status, 'waiting_deposit');
      assert.equal(events[0]?.created_at.getTime(), clock.now().getTime());

      const addresses = await db().selectFrom('deposit_addresses').selectAll().where('order_id', '=', order.id).execute();
      assert.equal(addresses.length, 1);
      assert.equal(addresses[0]?.chain, 'BTC');
      assert.equal(addresses[0]?.address, order.deposit_address);
      assert.equal(addresses[0]?.tag, '');
      assert.equal(addresses[0]?.strategy, 'hd');
    });

    it('reading it back gives the same object', async () => {
      const read = await t.app.inject({
        method: 'GET',
        url: `/api/v1/partner/orders/${order.id}`,
        headers: { authorization: `Bearer ${partner.apiKey}` },
      });
      assert.equal(read.statusCode, 200, read.body);
      assert.equal(read.body, res.body);
    });
  });

  it('two orders get different ids, short ids and deposit addresses', async () => {
    const a = created(await postOrder(t, partner.apiKey, BTC_ETH));
    const b = created(await postOrder(t, partner.apiKey, BTC_ETH));
    assert.notEqual(a.id, b.id);
    assert.notEqual(a.short_id, b.short_id);
    assert.notEqual(a.deposit_address, b.deposit_address);
  });

  it('tickers and networks are case-insensitive and come back canonical', async () => {
    const order = created(
      await postOrder(t, partner.apiKey, { ...BTC_ETH, coin_from: 'btc', network_from: 'btc', coin_to: 'eth', network_to: 'Eth' }),
    );
    assert.equal(order.coin_from, 'BTC');
    assert.equal(order.network_from, 'BTC');
    assert.equal(order.coin_to, 'ETH');
    assert.equal(order.network_to, 'ETH');
  });

  it('a valid refund_address is accepted, stored and shown (docs/contract.md §10.1)', async () => {
    const order = created(await postOrder(t, partner.apiKey, { ...BTC_ETH, refund_address: BTC_ADDRESS }));
    assert.equal(order.refund_address, BTC_ADDRESS);
    assert.equal(order.refund_address_tag, null);
    const row = await db().selectFrom('orders').select('refund_address').where('id', '=', order.id).executeTakeFirstOrThrow();
    assert.equal(row.refund_address, BTC_ADDRESS);
  });

  it('null for the optional text fields means none', async () => {
    const order = created(await postOrder(t, partner.apiKey, { ...BTC_ETH, refund_address: null, recipient_address_tag: null }));
    const row = await db().selectFrom('orders').select(['refund_address', 'recipient_address_tag']).where('id', '=', order.id).executeTakeFirstOrThrow();
    assert.deepEqual(row, { refund_address: null, recipient_address_tag: null });
  });

  it('an 18-decimal ETH amount is kept exactly (no binary float on the way)', async () => {
    const literal = '0.123456789012345678';
    const payload =
      '{"coin_from":"ETH","network_from":"ETH","coin_to":"BTC","network_to":"BTC",' +
      `"amount_from":${literal},"rate_type":"float","recipient_address":"${BTC_ADDRESS}"}`;
    const res = await postOrder(t, partner.apiKey, payload);
    const order = created(res);
    assert.equal(rawNumber(res.body, 'amount_from_expected'), literal);
    const expected = oracle({ from: 'ETH', to: 'BTC', amount: literal, markupBps: MARKUP_BPS });
    assert.equal(rawNumber(res.body, 'amount_to_expected'), expected.amountTo.toFixed());
    assert.equal(rawNumber(res.body, 'rate_quoted'), expected.rate.toFixed());
    assertPlainDecimal(rawNumber(res.body, 'amount_to_expected'), 8, 'amount_to_expected');
    assertPlainDecimal(rawNumber(res.body, 'rate_quoted'), 8, 'rate_quoted');
    const row = await db().selectFrom('orders').select('amount_from_expected').where('id', '=', order.id).executeTakeFirstOrThrow();
    assert.equal(new Decimal(row.amount_from_expected).toFixed(), literal);
    assert.equal(order.deposit_confirmations_required, 12);
    assert.deepEqual(validateAddress('evm', order.deposit_address), { ok: true });
  });

  it('a rate below 1e-6 (DOGE -> BTC at 0.01 USD) is still written as a plain decimal, never 1.4e-7', async () => {
    const cheap = await t.admin('PUT', '/admin/v1/prices/DOGE', { price_usd: '0.01' });
    assert.equal(cheap.statusCode, 200, cheap.body);
    try {
      const res = await postOrder(t, partner.apiKey, {
        ...BTC_ETH, coin_from: 'DOGE', network_from: 'DOGE', coin_to: 'BTC', network_to: 'BTC', amount_from: 100000, recipient_address: BTC_ADDRESS,
      });
      created(res);
      const rate = rawNumber(res.body, 'rate_quoted');
      assertPlainDecimal(rate, 8, 'rate_quoted');
      assert.ok(new Decimal(rate).lt('0.000001') && new Decimal(rate).gt(0), rate);
      assertPlainDecimal(rawNumber(res.body, 'amount_to_expected'), 8, 'amount_to_expected');
      assert.equal(rawNumber(res.body, 'amount_from_expected'), '100000');
    } finally {
      const back = await t.admin('PUT', '/admin/v1/prices/DOGE', { price_usd: '0.15' });
      assert.equal(back.statusCode, 200, back.body);
    }
  });

  it('a memo source (XRP -> BTC) gets the shared XRP address and a unique numeric tag each', async () => {
    const body = { ...BTC_ETH, coin_from: 'XRP', network_from: 'XRP', coin_to: 'BTC', network_to: 'BTC', amount_from: 100, recipient_address: BTC_ADDRESS };
    const a = created(await postOrder(t, partner.apiKey, body));
    const b = created(await postOrder(t, partner.apiKey, body));
    const shared = demoWallet.addresses.XRP;
    assert.ok(shared !== undefined, 'the demo wallet has an XRP address');
    for (const order of [a, b]) {
      assert.equal(order.deposit_address, shared);
      assert.deepEqual(validateAddress('xrp', order.deposit_address), { ok: true });
      assert.ok(order.deposit_address_tag !== null);
      assert.match(order.deposit_address_tag, /^[1-9][0-9]*$/);
      assert.deepEqual(validateMemo('xrp', order.deposit_address_tag), { ok: true });
      assert.equal(order.deposit_confirmations_required, 1);
    }
    assert.notEqual(a.deposit_address_tag, b.deposit_address_tag);
    const rows = await db().selectFrom('deposit_addresses').selectAll().where('order_id', 'in', [a.id, b.id]).execute();
    assert.equal(rows.length, 2);
    for (const row of rows) {
      assert.equal(row.chain, 'XRP');
      assert.equal(row.strategy, 'memo');
      assert.equal(row.address, shared);
    }
  });

  it('an XRP destination with its tag (XLM -> XRP): the deposit is the XLM memo address, the tag is stored', async () => {
    const order = created(
      await postOrder(t, partner.apiKey, {
        coin_from: 'XLM',
        network_from: 'XLM',
        coin_to: 'XRP',
        network_to: 'XRP',
        amount_from: 500,
        rate_type: 'float',
        recipient_address: XRP_ADDRESS,
        recipient_address_tag: '12345',
      }),
    );
    assert.equal(order.deposit_address, demoWallet.addresses.XLM);
    assert.deepEqual(validateAddress('stellar', order.deposit_address), { ok: true });
    assert.ok(order.deposit_address_tag !== null);
    assert.match(order.deposit_address_tag, /^[1-9][0-9]*$/);
    assert.equal(order.recipient_address, XRP_ADDRESS);
    assert.equal(order.recipient_address_tag, '12345', 'shown (docs/contract.md §10.1)');
    const row = await db().selectFrom('orders').select('recipient_address_tag').where('id', '=', order.id).executeTakeFirstOrThrow();
    assert.equal(row.recipient_address_tag, '12345');
  });

  it('a pool source (SOL -> BTC) gets a free pool address, now bound to the order', async () => {
    const order = created(
      await postOrder(t, partner.apiKey, { ...BTC_ETH, coin_from: 'SOL', network_from: 'SOL', coin_to: 'BTC', network_to: 'BTC', amount_from: 1, recipient_address: BTC_ADDRESS }),
    );
    assert.deepEqual(validateAddress('solana', order.deposit_address), { ok: true });
    assert.equal(order.deposit_address_tag, null);
    const rows = await db().selectFrom('deposit_addresses').selectAll().where('address', '=', order.deposit_address).execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.chain, 'SOL');
    assert.equal(rows[0]?.strategy, 'pool');
    assert.equal(rows[0]?.order_id, order.id);
    assert.equal(rows[0]?.assigned_at?.getTime(), clock.now().getTime());
  });

  it('the order references the catalog rows of its pair', async () => {
    const ids = await currencyIds(t);
    const order = created(await postOrder(t, partner.apiKey, BTC_ETH));
    const row = await db().selectFrom('orders').select(['currency_from_id', 'currency_to_id']).where('id', '=', order.id).executeTakeFirstOrThrow();
    assert.equal(row.currency_from_id, ids.get('BTC/BTC'));
    assert.equal(row.currency_to_id, ids.get('ETH/ETH'));
  });
});

describe('POST /partner/orders: SHORT_ID_PREFIX', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: { SHORT_ID_PREFIX: 'ZZ', WORKER: 'off' } });
  });
  after(() => t.close());

  it('short ids use the configured prefix', async () => {
    const partner = await t.createPartner();
    const order = created(await postOrder(t, partner.apiKey, BTC_ETH));
    assert.match(order.short_id, /^ZZ-[A-Z0-9]{6}$/);
  });
});
