import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { OrderEventListing } from '../../src/db/repositories/order-events-repository.js';
import { formatAmount } from '../../src/routes/cabinet/format.js';
import { timelineLines } from '../../src/routes/cabinet/order-detail.js';
import { csvField } from '../../src/routes/cabinet/orders-export.js';
import { CabinetClient, cabinetPerson } from '../helpers/cabinet-client.js';
import { htmlProblems } from '../helpers/html-check.js';
import { advance, createOrder, shortFixedOrder, simulateDeposit, setConfirmations, startHarness, type Harness } from '../lifecycle/lifecycle-helpers.js';

const PASSWORD = 'copper lantern meadow quiver';

describe('the HTML check of the cabinet tests (html-validate)', () => {
  it('finds the mistakes that rewrote pages before, and passes clean markup', () => {
    const wrap = (body: string) => `<!doctype html><html lang="en"><head><title>x</title></head><body>${body}</body></html>`;
    assert.deepEqual(htmlProblems(wrap('<p class="x"><a href="/">a</a> <button type="button">b</button></p><ul><li>1</li><li>2</li></ul>')), []);
    assert.deepEqual(htmlProblems(wrap('<svg viewBox="0 0 1 1"><path d="M0 0"/></svg><label>a <input type="text" name="a"></label><br>')), []);
    assert.deepEqual(htmlProblems(wrap('<form method="post"><label><input type="checkbox" name="e" value="1"> 1</label><label><input type="checkbox" name="e" value="2"> 2</label><button type="submit">Go</button></form>')), []);
    assert.match(htmlProblems(wrap('<p class="pager"><form method="post"><button type="submit">x</button></form></p>')).join(), /<p> is implicitly closed by adjacent <form>/);
    assert.match(htmlProblems(wrap('<div></span></div>')).join(), /Stray end tag '<\/span>'/);
    assert.match(htmlProblems(wrap('<div><span></div>')).join(), /close-order/);
    assert.match(htmlProblems(wrap('<form><form></form></form>')).join(), /<form> element is not permitted as a descendant of <form>/);
    assert.match(htmlProblems(wrap('<a href="/"><button type="button">x</button></a>')).join(), /<button> element is not permitted as a descendant of <a>/);
    assert.match(htmlProblems(wrap('<i id="a"></i><b id="a"></b>')).join(), /no-dup-id/);
    assert.match(htmlProblems(wrap('<i class="a" class="b"></i>')).join(), /no-dup-attr/);
    assert.match(htmlProblems('<html><body></body></html>').join(), /missing-doctype/);
  });
});

describe('amounts and CSV fields', () => {
  it('amounts: exact, at most the coin decimals, thousands grouped', () => {
    assert.equal(formatAmount('1234567.891200000000', 8), '1,234,567.8912');
    assert.equal(formatAmount('0.123456789', 8), '0.12345678');
    assert.equal(formatAmount('1000', 6), '1,000');
    assert.equal(formatAmount('999.5', 2), '999.5');
    assert.equal(formatAmount(null, 8), '—');
  });
  it('CSV fields: quoted when needed, formulas defused', () => {
    assert.equal(csvField('plain'), 'plain');
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField('=HYPERLINK("x")'), `"'=HYPERLINK(""x"")"`);
    assert.equal(csvField('@sum'), "'@sum");
    assert.equal(csvField(null), '');
  });
});

describe('the timeline', () => {
  it('a deposit confirmed one block at a time is one line with the count, every line in words', () => {
    const at = (minute: number) => new Date(Date.UTC(2026, 2, 5, 10, minute));
    const event = (from: OrderEventListing['from_status'], to: OrderEventListing['to_status'], reason: string, minute: number): OrderEventListing => ({
      from_status: from, to_status: to, reason, data: null, actor: 'system', actor_key_id: null, actor_user_id: null, created_at: at(minute),
    });
    const events = [
      event(null, 'waiting_deposit', 'created', 0),
      event('waiting_deposit', 'confirming', 'deposit_seen', 1),
      ...Array.from({ length: 18 }, (_, i) => event('confirming', 'confirming', 'confirmations', 2 + i)),
      event('confirming', 'exchanging', 'confirmed', 21),
    ];
    const lines = timelineLines(events, { deposit_confirmations: 19, deposit_confirmations_required: 19 });
    assert.deepEqual(lines.map((line) => line.text), [
      'Order created (now waiting deposit)',
      'Deposit seen on the chain (now confirming)',
      'Deposit confirmations: 19 of 19',
      'Deposit confirmed (now exchanging)',
    ]);
    assert.deepEqual(lines[2]!.at, at(19), 'where the last confirmation came');
  });
});

/**
 * Issue 31's defects over app.inject: every page is valid HTML, unknown paths and errors are
 * cabinet pages, the favicon, the deposit QR only while a deposit is awaited, the held refund's
 * facts and its confirmations.
 */
describe('cabinet round 2: pages', () => {
  let h: Harness;
  let client: CabinetClient;

  before(async () => {
    h = await startHarness();
    ({ client } = await cabinetPerson(h.t, { email: 'round2@cabinet.example', password: PASSWORD, partnerId: h.partner.id }));
  });
  after(() => h.t.close());

  let heldId: string;

  it('a held refund shows what to decide on: the deadline, the refund address, both rates, what each choice gives, the fee', async () => {
    const held = await shortFixedOrder(h);
    heldId = held.id;
    assert.equal(held.status, 'refunding');
    assert.notEqual(held.refund_hold_until, null);
    const page = await client.get(`/cabinet/orders/${held.id}`);
    assert.equal(page.statusCode, 200);
    const section = /<section class="held"[\s\S]*?<\/section>/.exec(page.body)?.[0] ?? '';
    assert.match(section, /The amount received differs from the amount the fixed rate was quoted for\./);
    assert.match(section, /Choose before <time datetime="[^"]+">[^<]+<\/time> \(<span data-countdown-ms="1800000">30 min left<\/span>\)/);
    assert.match(section, /<dt>Refund goes to<\/dt><dd><span class="mono">bc1q/);
    assert.match(section, /<dt>Rate quoted<\/dt><dd>[0-9.]+ ETH per BTC<\/dd>/);
    assert.match(section, /<dt>Rate now<\/dt><dd>[0-9.]+ ETH per BTC<\/dd>/);
    assert.match(section, new RegExp(`<dt>Refund now gives</dt><dd>${held.amount_from_received!.replace('.', '\\.')} BTC back, no fee taken</dd>`));
    assert.match(section, /<dt>Continue gives<\/dt><dd>[0-9.]+ ETH, after the network fee of [0-9.]+ ETH<\/dd>/);
    assert.match(page.body, /<span class="badge act">refund held: your choice<\/span>/);
    // Refund now asks first; continue is a plain button. No QR: the deposit came.
    assert.match(page.body, /<details class="confirm"><summary>Refund now…<\/summary>[\s\S]*?Yes, refund now<\/button>/);
    assert.match(page.body, /<button type="submit">Continue at the current rate<\/button>/);
    assert.doesNotMatch(page.body, /<figure class="qr"/);
    assert.deepEqual(htmlProblems(page.body), []);
    // The overview lists it under "Needs your action", with its deadline.
    const overview = await client.get('/cabinet');
    const needs = /<section class="held" aria-labelledby="needs-title">[\s\S]*?<\/section>/.exec(overview.body)?.[0] ?? '';
    assert.match(needs, new RegExp(`<a href="/cabinet/orders/${held.id}" class="mono">${held.short_id}</a> <span class="badge act">refund held: your choice</span> — choose refund or continue before <time`));
    assert.deepEqual(htmlProblems(overview.body), []);
    // The chart has a value axis, and its numbers are a table too (no hover needed).
    assert.match(overview.body, /<line class="grid" x1="32"[^>]*><\/line><text x="28" y="[0-9]+" text-anchor="end">0<\/text>/);
    const numbers = /<details class="chart-numbers">[\s\S]*?<\/details>/.exec(overview.body)?.[0] ?? '';
    assert.equal([...numbers.matchAll(/<tr><th scope="row">\d{4}-\d{2}-\d{2}<\/th>/g)].length, 30);
    assert.match(numbers, /<tr><th scope="row">\d{4}-\d{2}-\d{2}<\/th><td class="num">[1-9]\d*<\/td>/, "today's orders");
    // Test mode has none: the section is left out.
    assert.doesNotMatch((await client.get('/cabinet?mode=test')).body, /Needs your action/);
  });

  it('every page of the cabinet is valid HTML', async () => {
    const waiting = await createOrder(h);
    await simulateDeposit(h, (await createOrder(h)).id);
    const confirming = await createOrder(h);
    await simulateDeposit(h, confirming.id);
    await h.t.runtime.worker.tick();
    await setConfirmations(h, confirming.id, 1);
    await h.t.runtime.worker.tick();
    const endpoint = await h.t.runtime.webhooks.create({ partnerId: h.partner.id, mode: 'live' }, { url: 'http://127.0.0.1:9/round2', description: 'round 2' });
    await h.t.runtime.webhooks.ping(endpoint.endpoint.id, h.partner.id);
    const waitingPage = await client.get(`/cabinet/orders/${waiting.id}`);
    assert.match(waitingPage.body, /<figure class="qr"/, 'the QR code while the deposit is awaited');
    const pages = [
      '/cabinet',
      '/cabinet/orders',
      '/cabinet/orders?sandbox=1',
      '/cabinet/orders?from=2024-13-45',
      `/cabinet/orders/${waiting.id}`,
      `/cabinet/orders/${confirming.id}`,
      `/cabinet/orders/${heldId}`,
      '/cabinet/keys',
      '/cabinet/webhooks',
      `/cabinet/webhooks/${endpoint.endpoint.id}`,
      '/cabinet/settings',
      '/cabinet/account',
      '/cabinet/team',
      '/cabinet/requests',
      '/cabinet/no-such-page',
    ];
    for (const path of pages) {
      const res = await client.get(path);
      assert.ok([200, 400, 404].includes(res.statusCode), `${path}: ${res.statusCode}`);
      assert.deepEqual(htmlProblems(res.body), [], path);
    }
    const anonymous = new CabinetClient(h.t, '198.51.100.250');
    const invited = await h.t.admin('POST', `/admin/v1/partners/${h.partner.id}/invitations`, { email: 'invited-html@cabinet.example' });
    const invitation = new URL(invited.json<{ url: string }>().url).pathname;
    for (const path of ['/cabinet/login', '/cabinet/no-such-page', invitation, '/cabinet/invitation/not-a-token']) {
      assert.deepEqual(htmlProblems((await anonymous.get(path)).body), [], `${path} signed out`);
    }
    // Every form's 303 leads to a valid page too (its notice or its problem in it).
    await client.get(`/cabinet/webhooks/${endpoint.endpoint.id}`);
    assert.deepEqual(htmlProblems((await client.submit(`/cabinet/webhooks/${endpoint.endpoint.id}/test`, {})).body), []);
    assert.deepEqual(htmlProblems((await client.submit('/cabinet/settings', { markup_bps: 'many' })).body), []);
    // The two-factor enrolment page (its QR code and secret), reached through its form.
    await client.get('/cabinet/account');
    const enrol = await client.submit('/cabinet/account/totp', {});
    assert.match(enrol.body, /<svg/);
    assert.deepEqual(htmlProblems(enrol.body), [], 'two-factor enrolment');
  });

  it('an unknown /cabinet path, signed in or not, any method, is a cabinet page; an error is one too', async () => {
    const anonymous = new CabinetClient(h.t, '198.51.100.251');
    for (const [who, browser] of [['signed in', client], ['signed out', anonymous]] as const) {
      for (const path of ['/cabinet/nothing', '/cabinet/orders/x/y/z', '/cabinet/assets/none.css']) {
        const res = await browser.get(path);
        assert.equal(res.statusCode, 404, `${path} ${who}`);
        assert.match(String(res.headers['content-type']), /^text\/html/);
        assert.match(res.body, /<h1>Page not found<\/h1>/);
      }
      const posted = await browser.post('/cabinet/nothing', { a: 'b' });
      assert.equal(posted.statusCode, 404);
      assert.match(posted.body, /<h1>Page not found<\/h1>/);
    }
    // The API's own paths keep their JSON 404.
    const api = await h.t.app.inject({ method: 'GET', url: '/api/v1/nothing' });
    assert.match(String(api.headers['content-type']), /^application\/json/);
    // A form too large for the cabinet: a cabinet page, not the API's JSON.
    await client.get('/cabinet/settings');
    const large = await client.post('/cabinet/settings', { markup_bps: '1', filler: 'x'.repeat(10_000) });
    assert.equal(large.statusCode, 413);
    assert.match(String(large.headers['content-type']), /^text\/html/);
    assert.match(large.body, /<h1>Form too large<\/h1>/);
    assert.deepEqual(htmlProblems(large.body), []);
  });

  it('test mode (docs/contract.md §9.1): a banner; overview, orders, keys and webhooks show the sandbox side, and a new endpoint is a sandbox one', async () => {
    const sandboxKey = (await h.t.admin('POST', `/admin/v1/partners/${h.partner.id}/keys`, { sandbox: true })).json<{ api_key: string; key_id: string }>();
    const sandboxOrder = await createOrder(h, {}, sandboxKey.api_key);
    const tester = new CabinetClient(h.t, '198.51.100.252');
    await tester.signIn('round2@cabinet.example', PASSWORD);
    // Live by default: no banner, the live order counts, the sandbox one is not listed.
    const live = await tester.get('/cabinet/orders');
    assert.doesNotMatch(live.body, /test-banner/);
    assert.doesNotMatch(live.body, new RegExp(sandboxOrder.id));
    assert.doesNotMatch((await tester.get('/cabinet/keys')).body, new RegExp(sandboxKey.key_id));
    await tester.get('/cabinet');
    await tester.submit('/cabinet/mode', { mode: 'sandbox', back: '/cabinet' });
    for (const path of ['/cabinet', '/cabinet/orders', '/cabinet/keys', '/cabinet/webhooks', '/cabinet/settings', `/cabinet/orders/${sandboxOrder.id}`]) {
      const res = await tester.get(path);
      assert.match(res.body, /<section class="test-banner" aria-label="Test mode"><div role="note">/, path);
      assert.deepEqual(htmlProblems(res.body), [], `${path} in test mode`);
    }
    const overview = await tester.get('/cabinet');
    // The one sandbox order, waiting: the live ones of this file are not counted here.
    assert.match(overview.body, /<a href="\/cabinet\/orders\?status=waiting_deposit">waiting deposit<\/a><\/th><td class="num">1<\/td>/);
    assert.doesNotMatch(overview.body, /status=refunding/);
    assert.match((await tester.get('/cabinet/orders')).body, new RegExp(`href="/cabinet/orders/${sandboxOrder.id}"`));
    const keys = await tester.get('/cabinet/keys');
    assert.match(keys.body, new RegExp(sandboxKey.key_id));
    assert.match(keys.body, /<input type="hidden" name="kind" value="sandbox">/);
    const added = await tester.submit('/cabinet/webhooks', { url: 'http://127.0.0.1:9/test-mode' });
    assert.match(added.body, /<dt>Mode<\/dt><dd>sandbox/);
    const endpoints = await h.t.runtime.webhooks.list(h.partner.id);
    assert.equal(endpoints.find((endpoint) => endpoint.url === 'http://127.0.0.1:9/test-mode')?.mode, 'sandbox');
    assert.match((await tester.get('/cabinet/webhooks')).body, /test-mode/);
    assert.doesNotMatch((await tester.get('/cabinet/webhooks?mode=live')).body, /test-mode/);
    // The query wins over the cookie for one page; the switch back ends the banner.
    assert.doesNotMatch((await tester.get('/cabinet/orders?mode=live')).body, /test-banner/);
    assert.doesNotMatch((await tester.submit('/cabinet/mode', { mode: 'live', back: '/cabinet/orders' })).body, /test-banner/);
  });

  it('orders: networks, formatted amounts, badges, search without the prefix, an impossible range said, totals, a CSV of every match', async () => {
    const sandboxKey = (await h.t.admin('POST', `/admin/v1/partners/${h.partner.id}/keys`, { sandbox: true })).json<{ api_key: string }>().api_key;
    const made: Array<{ id: string; short_id: string }> = [];
    // More than the list's largest page (100), in two rounds: a partner may have 100 orders open at once.
    for (let i = 0; i < 60; i++) made.push(await createOrder(h, { amount_from: '0.01' }, sandboxKey));
    await advance(h, 31 * 60_000);
    // Past the session's 30 idle minutes too: signed in again.
    await client.signIn('round2@cabinet.example', PASSWORD);
    for (let i = 0; i < 43; i++) made.push(await createOrder(h, { amount_from: '0.01' }, sandboxKey));
    const listPage = await client.get('/cabinet/orders?mode=test');
    assert.match(listPage.body, /<th scope="col">Networks<\/th>/);
    assert.match(listPage.body, /<td data-label="Networks">BTC → ETH<\/td>/);
    assert.match(listPage.body, /<td data-label="Send" class="num">0\.01 BTC<\/td>/);
    assert.match(listPage.body, /<span class="badge wait">waiting for deposit<\/span>/);
    // Totals of every match (104 sandbox orders: this test's and the mode test's), not the page's 50.
    assert.match(listPage.body, /<th scope="row">BTC<\/th><td class="num">104<\/td><td class="num">1\.53<\/td>/);
    const target = made[7]!;
    const bare = target.short_id.split('-')[1]!;
    const searched = await client.get(`/cabinet/orders?mode=test&search=${bare.toLowerCase()}`);
    assert.equal([...searched.body.matchAll(/<td data-label="Order">/g)].length, 1);
    assert.match(searched.body, new RegExp(`href="/cabinet/orders/${target.id}"`));
    const backwards = await client.get('/cabinet/orders?mode=test&from=2026-03-09&to=2026-03-01');
    assert.match(backwards.body, /role="alert">“Created from” \(2026-03-09\) is after “Created to” \(2026-03-01\): no order can match/);
    assert.deepEqual(htmlProblems(backwards.body), []);
    // The export: every match, over the list's pages of 100, streamed.
    assert.match(listPage.body, /<a href="\/cabinet\/orders\.csv\?mode=test" download>Export these orders as CSV<\/a>/);
    const csv = await client.get('/cabinet/orders.csv?mode=test');
    assert.equal(csv.statusCode, 200);
    assert.match(String(csv.headers['content-type']), /^text\/csv/);
    assert.equal(csv.headers['content-disposition'], 'attachment; filename="orders-sandbox.csv"');
    const lines = csv.body.trimEnd().split('\r\n');
    assert.match(lines[0]!, /^short_id,id,created_at,status,status_reason,coin_from,network_from,amount_from_expected,/);
    assert.equal(lines.length, 1 + 104);
    assert.equal(new Set(lines.slice(1).map((line) => line.split(',')[1])).size, 104, 'each order once');
    assert.ok(lines.some((line) => line.startsWith(`${target.short_id},${target.id},`)));
    // Filtered: the search's one order.
    assert.equal((await client.get(`/cabinet/orders.csv?mode=test&search=${bare}`)).body.trimEnd().split('\r\n').length, 2);
    // Live mode's export holds live orders only.
    assert.ok(!(await client.get('/cabinet/orders.csv?mode=live')).body.includes(target.id));
  });

  it('webhooks: edit, the delivery log filtered by status and event, 50 more at a time, each request body and its order', async () => {
    const made = await h.t.runtime.webhooks.create({ partnerId: h.partner.id, mode: 'live' }, { url: 'http://127.0.0.1:9/log' });
    const id = made.endpoint.id;
    const order = await createOrder(h);
    await h.t.runtime.worker.tick();
    for (let i = 0; i < 55; i++) await h.t.runtime.webhooks.ping(id, h.partner.id);
    const first = await client.get(`/cabinet/webhooks/${id}`);
    assert.equal([...first.body.matchAll(/<td data-label="Status">/g)].length, 50);
    assert.match(first.body, new RegExp(`<a href="/cabinet/webhooks/${id}\\?shown=100">Show 50 more</a>`));
    assert.deepEqual(htmlProblems(first.body), []);
    const all = await client.get(`/cabinet/webhooks/${id}?shown=100`);
    const lines = [...all.body.matchAll(/<td data-label="Status">/g)].length;
    assert.ok(lines > 55, `every delivery: ${lines}`);
    assert.doesNotMatch(all.body, /Show 50 more/);
    // The order's events: the filter keeps them; each links its order and shows the body sent.
    const created = await client.get(`/cabinet/webhooks/${id}?event=order.created`);
    assert.equal([...created.body.matchAll(/<td data-label="Status">/g)].length, 1);
    assert.match(created.body, new RegExp(`<a href="/cabinet/orders/${order.id}">Order</a><details class="request"><summary>Request body</summary><pre class="mono">\\{\\n  &quot;`));
    assert.match(created.body, /<option value="order.created" selected>/);
    assert.match((await client.get(`/cabinet/webhooks/${id}?status=delivered`)).body, /No deliveries match/);
    // Edit: URL, description, events; a refused URL is said, nothing changed.
    const edited = await client.submit(`/cabinet/webhooks/${id}/edit`, { url: 'http://127.0.0.1:9/log-2', description: 'edited', events: 'order.created' });
    assert.match(edited.body, /role="status">The endpoint is saved/);
    const stored = await h.t.runtime.webhooks.get(id, h.partner.id);
    assert.deepEqual([stored.url, stored.description, stored.events], ['http://127.0.0.1:9/log-2', 'edited', ['order.created']]);
    const refused = await client.submit(`/cabinet/webhooks/${id}/edit`, { url: 'ftp://example.com/x' });
    assert.match(refused.body, /class="problem" role="alert">url /);
    assert.equal((await h.t.runtime.webhooks.get(id, h.partner.id)).url, 'http://127.0.0.1:9/log-2');
  });

  it("webhooks: each attempt's response is kept (status, headers, the first 4 KiB of the body) and shown beside its request", async () => {
    const long = 'x'.repeat(5000);
    const receiver = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        if (request.url === '/refuses') response.writeHead(418, { 'content-type': 'text/plain', 'x-receiver': 'teapot <b>' }).end(`not today ${long}`);
        else response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = receiver.address() as AddressInfo;
      const refuses = (await h.t.runtime.webhooks.create({ partnerId: h.partner.id, mode: 'live' }, { url: `http://127.0.0.1:${port}/refuses` })).endpoint.id;
      const takes = (await h.t.runtime.webhooks.create({ partnerId: h.partner.id, mode: 'live' }, { url: `http://127.0.0.1:${port}/takes` })).endpoint.id;
      await h.t.runtime.webhooks.ping(refuses, h.partner.id);
      await h.t.runtime.webhooks.ping(takes, h.partner.id);
      await h.t.app.runtime.webhookWorker.drain();
      const stored = await h.t.db.handle.db.selectFrom('webhook_delivery_attempts').select(['endpoint_id', 'status_code', 'response_headers', 'response_body']).where('endpoint_id', 'in', [refuses, takes]).execute();
      const refused = stored.find((row) => row.endpoint_id === refuses);
      assert.equal(refused?.status_code, 418);
      assert.equal(refused?.response_headers?.['x-receiver'], 'teapot <b>');
      assert.equal(refused?.response_body?.length, 4096, 'the first 4 KiB, no more');
      assert.equal(refused?.response_body?.toString('utf8'), `not today ${long}`.slice(0, 4096));
      assert.equal(stored.find((row) => row.endpoint_id === takes)?.response_body?.toString('utf8'), '{"ok":true}');

      const page = await client.get(`/cabinet/webhooks/${refuses}`);
      assert.equal(page.statusCode, 200);
      assert.deepEqual(htmlProblems(page.body), []);
      const shown = /<details class="request"><summary>Response<\/summary>\s*<pre class="mono">([\s\S]*?)<\/pre>/.exec(page.body)?.[1] ?? '';
      assert.match(shown, /^HTTP 418\n/);
      assert.match(shown, /\nx-receiver: teapot &lt;b&gt;\n/, 'escaped');
      assert.match(shown, /\ncontent-type: text\/plain\n/);
      assert.ok(shown.endsWith(`not today ${long}`.slice(0, 4096)));
      assert.match(page.body, /The first 4 KiB of the body: the rest was not read\./);
      assert.match((await client.get(`/cabinet/webhooks/${takes}`)).body, /<pre class="mono">HTTP 200\n[\s\S]*?\{&quot;ok&quot;:true\}<\/pre>/);
    } finally {
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });

  it('every page names its icon, and the icon is served', async () => {
    assert.match((await client.get('/cabinet')).body, /<link rel="icon" href="\/cabinet\/assets\/favicon.svg" type="image\/svg\+xml">/);
    const icon = await client.get('/cabinet/assets/favicon.svg');
    assert.equal(icon.statusCode, 200);
    assert.equal(icon.headers['content-type'], 'image/svg+xml');
    assert.match(icon.body, /^<svg /);
  });
});
