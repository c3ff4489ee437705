import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cabinetPerson, type CabinetClient } from '../helpers/cabinet-client.js';
import { htmlProblems } from '../helpers/html-check.js';
import { advance, createOrder, startHarness, type Harness } from '../lifecycle/lifecycle-helpers.js';

const PASSWORD = 'pewter lagoon sextant comet';

/**
 * The request log: every answered request made with an API key is recorded (method, path
 * without its query, status, latency, error code; no body), written in batches off the
 * request path, shown per mode in the cabinet with filters, and deleted by the worker after
 * 7 days.
 */
describe('the request log', () => {
  let h: Harness;
  let client: CabinetClient;

  before(async () => {
    h = await startHarness();
    ({ client } = await cabinetPerson(h.t, { email: 'requests@cabinet.example', password: PASSWORD, partnerId: h.partner.id }));
  });
  after(() => h.t.close());

  const api = (method: 'GET' | 'POST', url: string, key = h.partner.apiKey, payload?: unknown) =>
    h.t.app.inject({ method, url, headers: { authorization: `Bearer ${key}` }, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });

  it('records what each key asked and got, never a body or the query, and the cabinet lists it by mode with filters', async () => {
    const order = await createOrder(h);
    assert.equal((await api('GET', `/api/v1/partner/orders/${order.id}?secret=in-the-query`)).statusCode, 200);
    assert.equal((await api('GET', '/api/v1/partner/orders/00000000-0000-4000-8000-000000000000')).statusCode, 404);
    assert.equal((await api('POST', '/api/v1/partner/orders', h.partner.apiKey, { coin_from: 'NOPE', note: 'body-marker' })).statusCode, 400);
    const sandboxKey = (await h.t.admin('POST', `/admin/v1/partners/${h.partner.id}/keys`, { sandbox: true })).json<{ api_key: string }>().api_key;
    assert.equal((await api('GET', '/api/v1/partner/orders', sandboxKey)).statusCode, 200);
    // Without a key nothing is recorded (there is no partner to show it to).
    await h.t.app.inject({ method: 'GET', url: '/api/v1/partner/orders' });
    await h.t.runtime.requestLog.flush();

    const rows = await h.t.db.handle.db.selectFrom('api_request_log').selectAll().orderBy('id').execute();
    assert.equal(rows.length, 5);
    assert.ok(rows.every((row) => !JSON.stringify(row).includes('body-marker') && !JSON.stringify(row).includes('in-the-query')));
    const missing = rows.find((row) => row.status === 404)!;
    assert.deepEqual([missing.method, missing.path, missing.error_code, missing.sandbox], ['GET', '/api/v1/partner/orders/00000000-0000-4000-8000-000000000000', 'not_found', false]);
    assert.equal(rows.find((row) => row.status === 400)?.error_code, 'bad_request');

    const page = await client.get('/cabinet/requests');
    assert.equal(page.statusCode, 200);
    assert.deepEqual(htmlProblems(page.body), []);
    assert.equal([...page.body.matchAll(/<td data-label="Status">/g)].length, 4, 'the live requests');
    assert.match(page.body, /<div class="mono">GET \/api\/v1\/partner\/orders\/00000000-0000-4000-8000-000000000000<\/div>/);
    assert.match(page.body, /<td data-label="Error code">not_found<\/td>/);
    const errors = await client.get('/cabinet/requests?status=4xx');
    assert.equal([...errors.body.matchAll(/<td data-label="Status">/g)].length, 2);
    assert.match(errors.body, /<option value="4xx" selected>/);
    const posts = await client.get('/cabinet/requests?method=POST&path=%2Fapi%2Fv1%2Fpartner%2Forders');
    assert.equal([...posts.body.matchAll(/<td data-label="Status">/g)].length, 2, 'the order created and the refused one');
    const sandbox = await client.get('/cabinet/requests?mode=test');
    assert.equal([...sandbox.body.matchAll(/<td data-label="Status">/g)].length, 1);
    assert.match(client.lastBody, /href="\/cabinet\/requests" aria-current="page"/);
  });

  it('pages 100 at a time, and the worker deletes what is older than 7 days', async () => {
    for (let i = 0; i < 101; i++) h.t.runtime.requestLog.record({ partner_id: h.partner.id, key_id: 'pk_bulk', sandbox: false, method: 'GET', path: `/api/v1/partner/orders/${i}`, status: 200, duration_ms: 1, error_code: null });
    await h.t.runtime.requestLog.flush();
    const first = await client.get('/cabinet/requests');
    assert.equal([...first.body.matchAll(/<td data-label="Status">/g)].length, 100);
    const older = /<a href="(\/cabinet\/requests\?before=[^"]+)">Older requests<\/a>/.exec(first.body)?.[1];
    assert.ok(older !== undefined);
    const second = await client.get(older.replaceAll('&amp;', '&'));
    assert.equal([...second.body.matchAll(/<td data-label="Status">/g)].length, 105 - 100);
    await advance(h, 7 * 24 * 3_600_000 + 60_000);
    assert.ok((await h.t.runtime.worker.pruneRequestLog()) >= 105);
    assert.equal((await h.t.db.handle.db.selectFrom('api_request_log').select('id').execute()).length, 0);
  });
});
