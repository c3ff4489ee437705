import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';
import { Decimal } from '../../src/domain/money.js';
import { REVEAL_TTL_MS } from '../../src/services/secret-reveals.js';
import { CabinetClient, cabinetPerson } from '../helpers/cabinet-client.js';
import { htmlProblems } from '../helpers/html-check.js';
import { advance, createOrder, depositAndRun, exactJson, getOrder, startHarness, type Harness } from '../lifecycle/lifecycle-helpers.js';

const PASSWORD = 'marble tundra whistle pepper';
const SANDBOX_ORDER = {
  coin_from: 'BTC',
  network_from: 'BTC',
  coin_to: 'ETH',
  network_to: 'ETH',
  amount_from: 0.1,
  rate_type: 'float',
  recipient_address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
  refund_address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
};

/** The cabinet's pages over app.inject: keys, orders and their detail, overview, settings. */
describe('cabinet pages', () => {
  const clock = new ManualClock(new Date('2026-03-02T09:00:00.000Z'));
  let t: TestApp;
  let client: CabinetClient;
  let partnerId: string;
  before(async () => {
    t = await buildTestApp({ clock, env: { WORKER: 'off', PARTNER_MARKUP_MAX_BPS: '250' } });
    ({ client, partnerId } = await cabinetPerson(t, { email: 'pages@cabinet.example', password: PASSWORD }));
  });
  after(() => t.close());

  it('the API reference: the partner document rendered in the cabinet, linked from its navigation and back, valid HTML', async () => {
    assert.match((await client.get('/cabinet')).body, /<li><a href="\/cabinet\/api-reference">API reference<\/a><\/li>/);
    const reference = await client.get('/cabinet/api-reference');
    assert.equal(reference.statusCode, 200);
    assert.deepEqual(htmlProblems(reference.body), []);
    assert.match(reference.body, /<a href="\/cabinet">Back to the cabinet<\/a>/);
    const partnerDocument = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json<{ paths: Record<string, Record<string, unknown>> }>();
    for (const [path, item] of Object.entries(partnerDocument.paths)) {
      for (const method of Object.keys(item).filter((key) => ['get', 'post', 'put', 'patch', 'delete'].includes(key))) {
        assert.ok(reference.body.includes(`<h3 id="op-${method}-${path.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '')}"><span class="badge">${method.toUpperCase()}</span> <code>${path}</code></h3>`), `${method} ${path}`);
      }
    }
    assert.doesNotMatch(reference.body, /\/admin\/v1\//, 'nothing of the operator API');
    assert.match(reference.body, /<h3 id="schema-Order">Order<\/h3>/);
    // Public, as the document is: signed out it is there too.
    assert.equal((await t.app.inject({ method: 'GET', url: '/cabinet/api-reference' })).statusCode, 200);
  });

  it('without PUBLIC_URL, "Forgot password" mails no link built on a Host header other than this machine', async () => {
    // Anyone writes the Host header of a reset request for someone else: a link built on it would
    // send the victim's token to that host (docs/adr/0051-cabinet-mail-period-responses-reference.md).
    const page = await t.app.inject({ method: 'GET', url: '/cabinet/forgot-password', headers: { host: 'attacker.example' } });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Ask the operator for a password reset link/);
    assert.doesNotMatch(page.body, /action="\/cabinet\/forgot-password"/);
    assert.deepEqual(htmlProblems(page.body), []);
    const local = await t.app.inject({ method: 'GET', url: '/cabinet/forgot-password', headers: { host: '127.0.0.1:8080' } });
    assert.match(local.body, /action="\/cabinet\/forgot-password"/);
  });

  let apiKey: string;
  let orderId: string;

  it('a sandbox key created with a label is shown once, listed with its last use, and works on the API', async () => {
    // The test/live switch (docs/contract.md §9.1): test mode, back to the keys page, with its banner.
    await client.get('/cabinet/keys');
    const switched = await client.post('/cabinet/mode', { mode: 'sandbox', back: '/cabinet/keys' });
    assert.equal(switched.statusCode, 303);
    assert.equal(switched.headers.location, '/cabinet/keys');
    const testMode = await client.get('/cabinet/keys');
    assert.match(testMode.body, /<section class="test-banner" aria-label="Test mode"><div role="note"><strong>Test mode<\/strong>/);
    assert.match(testMode.body, /<h2>Create a sandbox key<\/h2>/);
    assert.match(testMode.body, /<button type="submit" class="secondary">Switch to live mode<\/button>/);
    const created = await client.post('/cabinet/keys', { label: 'staging <server>', kind: 'sandbox' });
    // Post, redirect, get: the form's answer holds no key, so reloading the page never posts it again.
    assert.equal(created.statusCode, 303, created.body);
    const location = String(created.headers.location);
    assert.match(location, /^\/cabinet\/keys\?created=[0-9a-f-]{36}&mode=test$/);
    assert.doesNotMatch(created.body, /pk_/);
    const shown = await client.get(location);
    assert.equal(shown.statusCode, 200);
    apiKey = /id="new-key" value="(pk_test_[a-z0-9]+\.[A-Za-z0-9_-]{43})"/.exec(shown.body)?.[1] ?? '';
    assert.ok(apiKey !== '', 'the key is on the page');
    assert.match(shown.body, /Your new sandbox key “staging &lt;server&gt;”/, 'the label is escaped');
    assert.match(shown.body, /<button type="button" data-copy="new-key" hidden>Copy key<\/button>/);
    // The same page again (a reload), and the list: no secret.
    const reloaded = await client.get(location);
    assert.equal(reloaded.statusCode, 200);
    assert.ok(!reloaded.body.includes(apiKey.split('.')[1]!), 'the secret is not shown on a reload');
    assert.match(reloaded.body, /is not shown again/);
    assert.doesNotMatch(reloaded.body, /id="new-key"/);
    const listed = await client.get('/cabinet/keys');
    assert.ok(!listed.body.includes(apiKey.split('.')[1]!), 'the secret is not shown again');
    assert.match(listed.body, /never/);
    assert.equal([...listed.body.matchAll(/<td data-label="Label">staging &lt;server&gt;<\/td>/g)].length, 1, 'one key was made');

    const order = await t.app.inject({ method: 'POST', url: '/api/v1/partner/orders', headers: { authorization: `Bearer ${apiKey}` }, payload: SANDBOX_ORDER });
    assert.equal(order.statusCode, 201, order.body);
    orderId = order.json<{ id: string }>().id;
    assert.match((await client.get('/cabinet/keys')).body, /in the last minute/);
    await t.runtime.apiKeys.flushUses();
    assert.match((await client.get('/cabinet/keys')).body, /<time datetime="2026-03-02T09:00:00.000Z">/);
    // Live mode lists no sandbox key; back to live mode for the rest of the file.
    const liveKeys = await client.get('/cabinet/keys?mode=live');
    assert.match(liveKeys.body, /<h2>Your live keys<\/h2>/);
    assert.doesNotMatch(liveKeys.body, /staging &lt;server&gt;/);
    const live = await client.submit('/cabinet/mode', { mode: 'live', back: '/cabinet/keys' });
    assert.doesNotMatch(live.body, /test-banner/);
    // The switch goes back to cabinet pages only.
    assert.equal((await client.post('/cabinet/mode', { mode: 'live', back: 'https://elsewhere.example/' })).headers.location, '/cabinet');
  });

  it('the orders list shows sandbox orders apart, filters and searches; the detail has the timeline and QR', async () => {
    const live = await client.get('/cabinet/orders');
    assert.match(live.body, /No live orders match/);
    const sandbox = await client.get('/cabinet/orders?sandbox=1');
    assert.match(sandbox.body, new RegExp(`href="/cabinet/orders/${orderId}"`));
    assert.match((await client.get(`/cabinet/orders?sandbox=1&status=completed`)).body, /No sandbox orders match/);
    assert.match((await client.get(`/cabinet/orders?sandbox=1&search=${orderId}`)).body, new RegExp(orderId));
    assert.match((await client.get(`/cabinet/orders?sandbox=1&coin_from=eth`)).body, /No sandbox orders match/);

    const deposit = await t.app.inject({ method: 'POST', url: `/api/v1/partner/sandbox/orders/${orderId}/deposit`, headers: { authorization: `Bearer ${apiKey}` } });
    assert.equal(deposit.statusCode, 200, deposit.body);
    await t.runtime.worker.tick();
    const detail = await client.get(`/cabinet/orders/${orderId}`);
    assert.equal(detail.statusCode, 200);
    // Each move as words, the confirmations on one line; no QR once the deposit came (issue 31).
    assert.match(detail.body, /<ol class="timeline">\s*<li>.*Order created \(now waiting deposit\)/s);
    assert.match(detail.body, /Deposit seen on the chain \(now confirming\)/);
    const timeline = /<ol class="timeline">([\s\S]*?)<\/ol>/.exec(detail.body)?.[1] ?? '';
    assert.doesNotMatch(timeline.replace(/<time[^>]*>/g, ''), /[a-z]+_[a-z]+/, 'no machine code in the timeline');
    assert.doesNotMatch(detail.body, /<figure class="qr"/);
    assert.match(detail.body, /Sandbox/);
    const waiting = await t.app.inject({ method: 'POST', url: '/api/v1/partner/orders', headers: { authorization: `Bearer ${apiKey}` }, payload: SANDBOX_ORDER });
    const awaiting = await client.get(`/cabinet/orders/${waiting.json<{ id: string }>().id}`);
    assert.match(awaiting.body, /<figure class="qr"[^>]*><svg/, 'the QR code while the deposit is awaited');
  });

  it('revoking the key makes the API answer 401', async () => {
    const keyId = apiKey.split('.')[0]!;
    await client.get('/cabinet/keys?mode=test');
    const revoked = await client.post(`/cabinet/keys/${keyId}/revoke`, {});
    assert.equal(revoked.statusCode, 303);
    assert.match((await client.get('/cabinet/keys?done=revoked&mode=test')).body, /revoked <time/);
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/partner/orders/${orderId}`, headers: { authorization: `Bearer ${apiKey}` } });
    assert.equal(res.statusCode, 401);
  });

  it('the overview counts live orders by status, with a chart; sandbox ones apart', async () => {
    const overview = await client.get('/cabinet');
    assert.equal(overview.statusCode, 200);
    assert.match(overview.body, /<svg class="chart"/);
    assert.match(overview.body, /No live orders in the last 30 days/);
    // A live order of this partner counts.
    const key = await t.admin('POST', `/admin/v1/partners/${partnerId}/keys`);
    const liveKey = key.json<{ api_key: string }>().api_key;
    const order = await t.app.inject({ method: 'POST', url: '/api/v1/partner/orders', headers: { authorization: `Bearer ${liveKey}` }, payload: SANDBOX_ORDER });
    assert.equal(order.statusCode, 201, order.body);
    const counted = await client.get('/cabinet');
    assert.match(counted.body, /<th scope="row"><a href="\/cabinet\/orders\?status=waiting_deposit">waiting deposit<\/a><\/th><td class="num">1<\/td><td class="num">1<\/td><td class="num">1<\/td>/);
  });

  it('settings: the markup within the operator cap', async () => {
    await client.get('/cabinet/settings');
    const over = await client.submit('/cabinet/settings', { markup_bps: '251' });
    assert.match(over.body, /role="alert">[^<]*from 0 to 250/);
    assert.match((await client.submit('/cabinet/settings', { markup_bps: '250' })).body, /role="status">Your markup is now 250 basis points/);
    // The page the form led to is a GET: reading it again changes nothing and posts nothing.
    assert.equal((await client.get('/cabinet/settings?done=markup')).statusCode, 200);
    const partner = await t.admin('GET', `/admin/v1/partners/${partnerId}`);
    assert.equal(partner.json<{ markup_bps: number }>().markup_bps, 250);
  });

  it('webhooks: an endpoint with its secret shown once, a test event in the delivery log, resend, rotate, disable, delete', async () => {
    await client.get('/cabinet/webhooks');
    const refused = await client.submit('/cabinet/webhooks', { url: 'ftp://example.com/hook' });
    assert.match(refused.body, /role="alert">url /);
    // The refusal's words are signed for this session: a link that forges them shows none.
    const forged = await client.get('/cabinet/webhooks?problem=aGFja2Vk.AAAA');
    assert.doesNotMatch(forged.body, /role="alert"/);
    await client.get('/cabinet/webhooks');
    const created = await client.post('/cabinet/webhooks', { url: 'http://127.0.0.1:9/hook', description: 'orders <feed>', events: 'order.created' });
    // Post, redirect, get: the endpoint's page shows its secret once.
    assert.equal(created.statusCode, 303, created.body);
    const location = String(created.headers.location);
    const id = /^\/cabinet\/webhooks\/([0-9a-f-]{36})\?created=[0-9a-f-]{36}$/.exec(location)?.[1] ?? '';
    assert.notEqual(id, '', location);
    const shown = await client.get(location);
    const secret = /id="new-secret" value="(whsec_[A-Za-z0-9+/=]+)"/.exec(shown.body)?.[1];
    assert.ok(secret !== undefined);
    assert.match(shown.body, /orders &lt;feed&gt;/);
    // The secret shown is the one deliveries are signed with.
    assert.equal(await t.runtime.webhooks.openSecret(id, partnerId), secret);
    const reloaded = await client.get(location);
    assert.ok(!reloaded.body.includes(secret), 'the secret is not shown on a reload');
    assert.match(reloaded.body, /is not shown again/);
    const list = await client.get('/cabinet/webhooks');
    assert.ok(!list.body.includes(secret), 'the secret is not shown again');
    assert.equal((await t.runtime.webhooks.list(partnerId)).length, 1, 'one endpoint was added');
    await client.get(`/cabinet/webhooks/${id}`);
    const tested = await client.submit(`/cabinet/webhooks/${id}/test`, {});
    assert.match(tested.body, /A test event \(ping\) is on its way/);
    assert.match(tested.body, /<td data-label="Event"><div>ping/);
    const deliveryId = /action="\/cabinet\/webhooks\/deliveries\/([0-9a-f-]{36})\/resend"/.exec(tested.body)?.[1] ?? '';
    assert.match((await client.submit(`/cabinet/webhooks/deliveries/${deliveryId}/resend`, {})).body, /The delivery is sent again now/);
    const rotated = await client.post(`/cabinet/webhooks/${id}/rotate`, {});
    assert.equal(rotated.statusCode, 303, rotated.body);
    const rotatedPage = await client.get(String(rotated.headers.location));
    const next = /id="new-secret" value="(whsec_[A-Za-z0-9+/=]+)"/.exec(rotatedPage.body)?.[1];
    assert.ok(next !== undefined && next !== secret);
    assert.match(rotatedPage.body, /old secret keeps signing for 24 hours/);
    assert.equal(await t.runtime.webhooks.openSecret(id, partnerId), next);
    assert.ok(!(await client.get(String(rotated.headers.location))).body.includes(next), 'the new secret is not shown on a reload');
    assert.match((await client.submit(`/cabinet/webhooks/${id}/disable`, {})).body, /State<\/dt><dd>disabled/);
    assert.match((await client.submit(`/cabinet/webhooks/${id}/enable`, {})).body, /State<\/dt><dd>enabled/);
    // Rotate and delete ask first: their button only opens the confirmation holding the form.
    const endpointPage = await client.get(`/cabinet/webhooks/${id}`);
    assert.match(endpointPage.body, /<details class="confirm"><summary>Delete endpoint…<\/summary>[\s\S]*?<button type="submit" class="danger">Yes, delete the endpoint<\/button>/);
    assert.match(endpointPage.body, /<details class="confirm"><summary>Rotate secret…<\/summary>/);
    const deleted = await client.submit(`/cabinet/webhooks/${id}/delete`, {});
    assert.match(deleted.body, /The endpoint is deleted/);
    assert.match(deleted.body, /No live endpoints yet/);
    assert.equal((await client.get(`/cabinet/webhooks/${id}`)).statusCode, 404);
    // A form of a deleted endpoint: 303 to the list, which says so.
    assert.match((await client.submit(`/cabinet/webhooks/${id}/test`, {})).body, /role="alert">There is no webhook endpoint or delivery of yours/);
  });

  it('order actions: the offered ones are forms; cancel works once, then 409', async () => {
    const key = (await t.admin('POST', `/admin/v1/partners/${partnerId}/keys`, { sandbox: true })).json<{ api_key: string }>().api_key;
    const created = await t.app.inject({ method: 'POST', url: '/api/v1/partner/orders', headers: { authorization: `Bearer ${key}` }, payload: SANDBOX_ORDER });
    const id = created.json<{ id: string }>().id;
    const detail = await client.get(`/cabinet/orders/${id}`);
    // Cancelling asks first: the button opens the confirmation that holds the form.
    assert.match(detail.body, /<details class="confirm"><summary>Cancel the order…<\/summary>[\s\S]*?<button type="submit" class="danger">Yes, cancel the order<\/button>/);
    assert.match(detail.body, /<label>Refund address \(BTC on BTC\)/);
    const set = await client.submit(`/cabinet/orders/${id}/actions/set_refund_address`, { refund_address: 'not an address' });
    assert.match(set.body, /class="problem" role="alert"/);
    const after = await client.submit(`/cabinet/orders/${id}/actions/cancel`, {});
    assert.match(after.body, /The order is cancelled/);
    // Cancelled, not "expired" (issue 31).
    assert.match(after.body, /<dt>Status<\/dt><dd><span class="badge done">cancelled<\/span> It was cancelled before any deposit\./);
    assert.doesNotMatch(after.body, /Cancel the order/);
    assert.match(after.body, /: Cancelled \(now cancelled\)<\/li>/);
    const again = await client.submit(`/cabinet/orders/${id}/actions/cancel`, {});
    assert.match(again.body, /role="alert">cancel is not possible now/);
    assert.match((await client.submit(`/cabinet/orders/${id}/actions/launch`, {})).body, /role="alert">There is no order of yours with this id, or no such action/);
    const listed = await client.get(`/cabinet/orders?sandbox=1&search=${id}`);
    assert.match(listed.body, /<span class="badge done">cancelled<\/span>/);
  });

  it("a new key's reveal is the creating session's only, once, and briefly", async () => {
    const create = async (label: string) => {
      await client.get('/cabinet/keys');
      const res = await client.post('/cabinet/keys', { label, kind: 'sandbox' });
      assert.equal(res.statusCode, 303, res.body);
      return String(res.headers.location);
    };
    // Another browser of the same person, and another partner's person: not theirs to see.
    const sameTeam = new CabinetClient(t, '198.51.100.12');
    await sameTeam.signIn('pages@cabinet.example', PASSWORD);
    const stranger = (await cabinetPerson(t, { email: 'stranger@cabinet.example', password: PASSWORD, address: '198.51.100.13' })).client;
    const location = await create('reveal once');
    for (const other of [sameTeam, stranger]) {
      const res = await other.get(location);
      assert.equal(res.statusCode, 200);
      assert.doesNotMatch(res.body, /id="new-key"/);
      assert.match(res.body, /is not shown again/);
    }
    // Their tries did not use it up: the creating session still sees the key, once.
    assert.match((await client.get(location)).body, /id="new-key" value="pk_test_/);
    assert.doesNotMatch((await client.get(location)).body, /id="new-key"/);
    // A reveal not taken in time shows nothing (last in this file: the clock's move leaves the prices stale).
    const late = await create('reveal late');
    clock.advance(REVEAL_TTL_MS);
    assert.doesNotMatch((await client.get(late)).body, /id="new-key"/);
    // A revoked key is not revealed either.
    const revokedFirst = await create('revoked before shown');
    const keyId = /<td data-label="Label">revoked before shown<\/td>\s*<td data-label="Key id" class="mono">(pk_test_[a-z0-9]+)</.exec((await client.get('/cabinet/keys?mode=test')).body)?.[1] ?? '';
    assert.notEqual(keyId, '');
    assert.equal((await client.post(`/cabinet/keys/${keyId}/revoke`, {})).statusCode, 303);
    assert.doesNotMatch((await client.get(revokedFirst)).body, /id="new-key"/);
    // Malformed ids are no reveal.
    assert.match((await client.get('/cabinet/keys?created=nonsense')).body, /is not shown again/);
  });
});

interface StatsCommission {
  commission: { orders: string; usd: string; by_coin: Array<{ coin: string; amount: string; usd: string }> };
}

/** The overview's commission (docs/contract.md §7.8): the figures GET /partner/stats answers for the same periods, every decimal. */
describe('cabinet overview: commission', () => {
  let h: Harness;
  let client: CabinetClient;
  before(async () => {
    h = await startHarness();
    // Markup 137 bps: fees that do not round to neat numbers.
    assert.equal((await h.t.admin('PATCH', `/admin/v1/partners/${h.partner.id}`, { markup_bps: 137 })).statusCode, 200);
    ({ client } = await cabinetPerson(h.t, { email: 'commission@cabinet.example', password: PASSWORD, partnerId: h.partner.id }));
  });
  after(() => h.t.close());

  async function stats(days: number): Promise<StatsCommission> {
    const to = new Date(h.clock.now().getTime() + 1);
    const from = new Date(to.getTime() - days * 86_400_000);
    const res = await h.t.app.inject({
      method: 'GET',
      url: `/api/v1/partner/stats?from=${encodeURIComponent(from.toISOString())}&to=${encodeURIComponent(to.toISOString())}`,
      headers: { 'x-api-key': h.partner.apiKey },
    });
    assert.equal(res.statusCode, 200, res.body);
    return exactJson<StatsCommission>(res);
  }

  it('commission by coin and in USD for 24 hours, 7 and 30 days equals GET /partner/stats to the last decimal; sandbox apart', async () => {
    const empty = await client.get('/cabinet');
    assert.match(empty.body, /No commission on live orders/);

    // One order exchanged 3 days ago, two today (one of them sandbox, never counted).
    const exchanged = (await createOrder(h, { amount_from: '0.12345678' })).id;
    await depositAndRun(h, exchanged, 'completed');
    await advance(h, 3 * 86_400_000);
    await depositAndRun(h, (await createOrder(h, { amount_from: '1.00000001' })).id, 'completed');
    const sandboxKey = (await h.t.admin('POST', `/admin/v1/partners/${h.partner.id}/keys`, { sandbox: true })).json<{ api_key: string }>().api_key;
    const sandboxOrder = (await createOrder(h, {}, sandboxKey)).id;
    // Read with its own key: a live key does not reach a sandbox order (docs/contract.md §10.2).
    await depositAndRun(h, sandboxOrder, 'completed', {}, sandboxKey);

    // Three days idle ended the session.
    await client.signIn('commission@cabinet.example', PASSWORD);
    const overview = await client.get('/cabinet');
    assert.equal(overview.statusCode, 200);
    // A figure's text on the page, exactly as written there.
    const shown = (attribute: string) => new RegExp(`${attribute}">([0-9.]+)<`).exec(overview.body)?.[1];
    for (const [key, days] of [['day', 1], ['week', 7], ['month', 30]] as const) {
      const { commission } = await stats(days);
      assert.ok(commission.by_coin.length > 0, `${key}: something was earned`);
      assert.equal(shown(`data-commission-total="${key}`), commission.usd, `${key}: USD total`);
      for (const row of commission.by_coin) {
        assert.equal(shown(`data-commission="${key} ${row.coin}`), row.amount, `${key}: ${row.coin}`);
        assert.equal(shown(`data-commission-usd="${key} ${row.coin}`), row.usd, `${key}: ${row.coin} in USD`);
      }
    }
    // The windows differ: the order of 3 days ago is in the week, not in the day.
    assert.equal((await stats(1)).commission.orders, '1');
    assert.equal((await stats(7)).commission.orders, '2');
    assert.match(overview.body, /<dt>Commission<\/dt><dd>[0-9.]+ USD<\/dd>/);

    // The live order's page links its addresses and transactions to the coins' explorers (the catalog's URLs).
    const live = (await h.t.admin('GET', `/admin/v1/orders/${exchanged}`)).json<{ deposit_address: string; recipient_address: string; deposit_txid: string; payout_txid: string }>();
    const detail = await client.get(`/cabinet/orders/${exchanged}`);
    assert.equal(detail.statusCode, 200);
    for (const url of [
      `https://mempool.space/address/${live.deposit_address}`,
      `https://etherscan.io/address/${live.recipient_address}`,
      `https://mempool.space/tx/${live.deposit_txid}`,
      `https://etherscan.io/tx/${live.payout_txid}`,
    ]) {
      assert.ok(detail.body.includes(`<a class="mono" href="${url}" rel="noopener noreferrer">`), `a link to ${url}`);
    }
    // What was paid and where a refund would go (docs/contract.md §10.1, issue 26.2), as the Order shows them.
    const paid = await getOrder(h, exchanged);
    assert.ok(typeof paid.amount_to_final === 'string' && typeof paid.rate_final === 'string', 'paid out');
    assert.ok(
      detail.body.includes(`<dt>Paid out</dt><dd>${paid.amount_to_final} ETH at ${paid.rate_final} ETH per BTC</dd>`),
      'the page shows amount_to_final and rate_final',
    );
    assert.match(detail.body, /<dt>Refunded<\/dt><dd>—<\/dd>/);
    assert.ok(detail.body.includes(`https://mempool.space/address/${String(paid.refund_address)}`), 'the refund address');
    assert.match(detail.body, /<dt>Last change<\/dt><dd>/);
    // A sandbox order is on no public chain: its page links to no explorer.
    const sandboxDetail = await client.get(`/cabinet/orders/${sandboxOrder}`);
    assert.equal(sandboxDetail.statusCode, 200);
    assert.match(sandboxDetail.body, /<dt>Deposit transaction<\/dt><dd><span class="mono">/);
    assert.doesNotMatch(sandboxDetail.body, /href="https:/);
  });

  it('a period picked by preset or by days shows its orders, volume in USD at the current price and commission in USD; an impossible period is said', async () => {
    const today = h.clock.now().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.parse(`${today}T00:00:00.000Z`) + 86_400_000);
    const figure = (body: string, name: string) => new RegExp(`data-period="${name}">([0-9.,]+)<`).exec(body)?.[1];
    const week = await client.get('/cabinet?range=7d');
    assert.equal(week.statusCode, 200);
    assert.deepEqual(htmlProblems(week.body), []);
    assert.match(week.body, /<a href="\/cabinet\?range=7d" aria-current="true">/);
    assert.equal(figure(week.body, 'orders'), '2', 'the two live orders of the last 7 days; the sandbox one apart');
    assert.equal(figure(week.body, 'completed'), '2');
    // The volume in USD: what completed orders received, at the price service's BTC price now, to the cent.
    const price = h.t.runtime.prices.getPriceUsd(h.t.runtime.catalog.all().find((row) => row.coin === 'BTC')?.price_symbol ?? 'BTC');
    assert.ok(price !== undefined);
    const received = await h.t.db.handle.db.selectFrom('orders').select('amount_from_received').where('partner_id', '=', h.partner.id).where('sandbox', '=', false).where('status', '=', 'completed').execute();
    const volume = received.reduce((sum, row) => sum.plus(new Decimal(String(row.amount_from_received))), new Decimal(0));
    const expected = price.times(volume).toDecimalPlaces(2, Decimal.ROUND_HALF_EVEN).toFixed(2);
    assert.equal(figure(week.body, 'volume-usd')?.replace(/,/g, ''), expected);
    assert.match(week.body, new RegExp(`data-period-volume="BTC">${volume.toFixed().replace('.', '\\.')}<`));
    // The commission in USD is GET /partner/stats' for the same days.
    const from = new Date(tomorrow.getTime() - 7 * 86_400_000);
    const stats = await h.t.app.inject({
      method: 'GET',
      url: `/api/v1/partner/stats?from=${encodeURIComponent(from.toISOString())}&to=${encodeURIComponent(tomorrow.toISOString())}`,
      headers: { 'x-api-key': h.partner.apiKey },
    });
    assert.equal(figure(week.body, 'commission-usd')?.replace(/,/g, ''), new Decimal(exactJson<StatsCommission>(stats).commission.usd).toFixed(2));

    // Today alone: the order of 3 days ago is outside.
    const day = await client.get(`/cabinet?from=${today}&to=${today}`);
    assert.equal(figure(day.body, 'orders'), '1');
    assert.match(day.body, new RegExp(`<h2 id="period-title">Period: ${today} to ${today} \\(UTC\\)</h2>`));
    assert.doesNotMatch(day.body, /role="alert"/);

    // Impossible periods: said, and the last 30 days shown instead.
    for (const [query, said] of [
      [`from=${today}&to=2026-01-01`, /it starts \(\d{4}-\d{2}-\d{2}\) after it ends/],
      ['from=2026-02-30&to=2026-03-01', /not a date of the calendar/],
      ['from=2099-01-01&to=2099-01-02', /it starts after today/],
      ['from=2020-01-01&to=2026-01-01', /longer than 366 days/],
      ['range=12d', /Choose 7, 30 or 90 days/],
    ] as const) {
      const refused = await client.get(`/cabinet?${query}`);
      assert.equal(refused.statusCode, 200);
      assert.match(refused.body, /<p class="problem" role="alert">/);
      assert.match(refused.body, said);
      assert.match(refused.body, /<a href="\/cabinet\?range=30d" aria-current="true">/);
      assert.deepEqual(htmlProblems(refused.body), []);
    }
  });
});
