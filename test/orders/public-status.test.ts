import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * The end user's status link (docs/contract.md §10.10, issue 27.7): every Order has status_url, whose token
 * opens GET /api/v1/public/orders/{token} (no key, exactly the public fields, amounts as the
 * Order writes them) and the HTML page /status/{token} (no script, the service's CSP, nothing of
 * the partner). Unknown tokens are 404.
 */

const ETH_ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const PUBLIC_KEYS = [
  'short_id', 'status', 'coin_from', 'network_from', 'coin_to', 'network_to', 'amount_from_expected', 'amount_to_expected',
  'amount_to_final', 'deposit_address', 'deposit_address_tag', 'deposit_uri', 'deposit_txid', 'payout_txid', 'refund_txid',
  'expires_at', 'created_at', 'updated_at',
];

type Order = Record<string, unknown> & { id: string; short_id: string; status_url: string; deposit_address: string };

function tokenOf(order: Order): string {
  const match = /\/status\/([A-Za-z0-9_-]+)$/.exec(order.status_url);
  assert.ok(match?.[1] !== undefined, order.status_url);
  return match[1];
}

describe('status links: status_url, GET /api/v1/public/orders/{token} and /status/{token}', () => {
  let t: TestApp;
  let apiKey: string;
  before(async () => {
    t = await buildTestApp({ env: { WORKER: 'off', PRICE_POLL_SECONDS: '3600' } });
    ({ apiKey } = await t.createPartner({ name: 'Secret Partner Name', rate_limit_per_minute: 100_000 }));
  });
  after(() => t.close());

  const create = async (payload: Record<string, unknown>): Promise<Order> => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/partner/orders', headers: { 'x-api-key': apiKey }, payload });
    assert.equal(res.statusCode, 201, res.body);
    return res.json<Order>();
  };
  const btcToEth = { coin_from: 'BTC', network_from: 'BTC', amount_from: 0.01234567, coin_to: 'ETH', network_to: 'ETH', rate_type: 'float', recipient_address: ETH_ADDRESS };

  it('every Order has its own status_url, relative without PUBLIC_URL, a token of at least 128 random bits', async () => {
    const a = await create(btcToEth);
    const b = await create(btcToEth);
    assert.match(a.status_url, /^\/status\/[A-Za-z0-9_-]{32}$/);
    assert.notEqual(tokenOf(a), tokenOf(b));
    // 32 base64url characters: 192 bits.
    assert.ok(tokenOf(a).length * 6 >= 128);
    const read = await t.app.inject({ method: 'GET', url: `/api/v1/partner/orders/${a.id}`, headers: { 'x-api-key': apiKey } });
    assert.equal(read.json<Order>().status_url, a.status_url);
  });

  it('the JSON twin: no key, exactly the public fields, amounts as the Order writes them, any origin', async () => {
    const order = await create(btcToEth);
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/public/orders/${tokenOf(order)}`, headers: { origin: 'https://anywhere.example' } });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.equal(res.headers['cache-control'], 'no-store');
    const view = res.json<Record<string, unknown>>();
    assert.deepEqual(Object.keys(view), PUBLIC_KEYS);
    for (const key of PUBLIC_KEYS) assert.deepEqual(view[key], order[key], key);
    // The exact decimal text, as the Order writes it.
    assert.match(res.body, /"amount_from_expected":0\.01234567,/);
    assert.doesNotMatch(res.body, /recipient|partner|sandbox|"id"/);
  });

  it('unknown, malformed and short-id tokens are 404 {detail}', async () => {
    const order = await create(btcToEth);
    const token = tokenOf(order);
    const twisted = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    for (const bad of [twisted, 'x', order.short_id, order.id, `${token}x`, token.slice(0, 31)]) {
      const res = await t.app.inject({ method: 'GET', url: `/api/v1/public/orders/${encodeURIComponent(bad)}` });
      assert.equal(res.statusCode, 404, `${bad}: ${res.body}`);
      assert.equal(typeof res.json<{ detail: string }>().detail, 'string');
      const page = await t.app.inject({ method: 'GET', url: `/status/${encodeURIComponent(bad)}`, headers: { accept: 'text/html,*/*;q=0.8' } });
      assert.equal(page.statusCode, 404);
      assert.match(String(page.headers['content-type']), /^text\/html/);
      assert.match(page.body, /Order not found/);
      // Not a browser: the JSON envelope, as every other error.
      const plain = await t.app.inject({ method: 'GET', url: `/status/${encodeURIComponent(bad)}` });
      assert.equal(plain.statusCode, 404);
      assert.equal(plain.json<{ code: string }>().code, 'not_found');
    }
  });

  it('the page: plain HTML under the CSP (its one script of this origin, not needed), the deposit to make, nothing of the partner', async () => {
    const order = await create({ ...btcToEth, refund_address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' });
    const res = await t.app.inject({ method: 'GET', url: `/status/${tokenOf(order)}` });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html; charset=utf-8/);
    assert.match(String(res.headers['content-security-policy']), /script-src 'self'/);
    assert.equal(res.headers['cache-control'], 'no-store');
    // No inline script: one file of this origin, which follows the status stream (docs/contract.md §10.11).
    assert.deepEqual(res.body.match(/<script[^>]*>/gi), ['<script src="/status/assets/status.js" defer>']);
    assert.match(res.body, new RegExp(`<main data-stream="/api/v1/public/orders/${tokenOf(order)}/stream" data-version="0">`));
    assert.doesNotMatch(res.body, / style=/i);
    assert.match(res.body, /<meta name="viewport"/);
    // Without JavaScript, a refresh every 30 seconds.
    assert.match(res.body, /<noscript><meta http-equiv="refresh" content="30"><\/noscript>/);
    const script = await t.app.inject({ method: 'GET', url: '/status/assets/status.js' });
    assert.equal(script.statusCode, 200);
    assert.match(String(script.headers['content-type']), /^text\/javascript/);
    assert.match(script.body, /new EventSource/);
    assert.ok(res.body.includes(order.short_id));
    assert.ok(res.body.includes(order.deposit_address));
    assert.ok(res.body.includes('0.01234567'));
    assert.match(res.body, /Waiting for your deposit/);
    assert.match(res.body, /<svg/);
    for (const secret of ['Secret Partner Name', ETH_ADDRESS, 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', order.id]) {
      assert.ok(!res.body.includes(secret), `the page shows ${secret}`);
    }
    const css = await t.app.inject({ method: 'GET', url: '/status/assets/status.css' });
    assert.equal(css.statusCode, 200);
    assert.match(String(css.headers['content-type']), /^text\/css/);
  });

  it('an expired order: the page says so and stops refreshing', async () => {
    const order = await create(btcToEth);
    await t.db.handle.db.updateTable('orders').set({ created_at: new Date(Date.now() - 3_600_000), expires_at: new Date(Date.now() - 1000) }).where('id', '=', order.id).execute();
    const res = await t.app.inject({ method: 'GET', url: `/status/${tokenOf(order)}` });
    assert.match(res.body, /Expired/);
    assert.doesNotMatch(res.body, /http-equiv="refresh"/);
    assert.doesNotMatch(res.body, /<script|data-stream/);
    const json = await t.app.inject({ method: 'GET', url: `/api/v1/public/orders/${tokenOf(order)}` });
    assert.equal(json.json<{ status: string }>().status, 'expired');
  });

  it('the public routes count against the anonymous budget of the address', async () => {
    const order = await create(btcToEth);
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/public/orders/${tokenOf(order)}`, remoteAddress: '198.51.100.7' });
    assert.equal(res.headers['ratelimit-limit'], '60');
    const page = await t.app.inject({ method: 'GET', url: `/status/${tokenOf(order)}`, remoteAddress: '198.51.100.7' });
    assert.equal(page.headers['ratelimit-limit'], '60');
  });
});

describe('status_url with PUBLIC_URL', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: { WORKER: 'off', PRICE_POLL_SECONDS: '3600', PUBLIC_URL: 'https://exchange.example' } });
  });
  after(() => t.close());

  it('is {PUBLIC_URL}/status/{token}, in the answer and in the order.created webhook body alike', async () => {
    const { apiKey } = await t.createPartner();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { 'x-api-key': apiKey },
      payload: { coin_from: 'BTC', network_from: 'BTC', amount_from: 0.01, coin_to: 'ETH', network_to: 'ETH', rate_type: 'float', recipient_address: ETH_ADDRESS },
    });
    assert.equal(res.statusCode, 201, res.body);
    const order = res.json<Order>();
    assert.match(order.status_url, /^https:\/\/exchange\.example\/status\/[A-Za-z0-9_-]{32}$/);
    assert.equal((await t.app.inject({ method: 'GET', url: `/api/v1/public/orders/${tokenOf(order)}` })).statusCode, 200);
  });
});
