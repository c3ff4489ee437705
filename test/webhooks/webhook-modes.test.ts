import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cabinetPerson, type CabinetClient } from '../helpers/cabinet-client.js';
import { ManualClock } from '../helpers/test-app.js';
import { createOrder, startHarness, type Harness } from '../lifecycle/lifecycle-helpers.js';
import { WebhookReceiver } from './webhook-receiver.js';

interface Endpoint {
  id: string;
  url: string;
  mode: 'live' | 'sandbox';
  enabled: boolean;
  disabled_reason: string | null;
}

/**
 * Webhook endpoints and modes (docs/contract.md §10.2, issue 26.4), the endpoint cap under concurrent
 * creates and the operator's switch that the partner cannot get around (issue 26.6).
 */
describe('webhook endpoints: modes, the cap, the operator\'s switch', () => {
  const receiver = new WebhookReceiver();
  let h: Harness;
  let sandboxKey: string;
  before(async () => {
    await receiver.start();
    h = await startHarness({ WEBHOOK_ALLOW_PRIVATE: 'true' }, new ManualClock());
    sandboxKey = (await h.t.admin('POST', `/admin/v1/partners/${h.partner.id}/keys`, { sandbox: true })).json<{ api_key: string }>().api_key;
  });
  after(async () => {
    await h.t.close();
    await receiver.close();
  });

  const api = (apiKey: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    h.t.app.inject({
      method,
      url: `/api/v1/partner${url}`,
      headers: { 'x-api-key': apiKey, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  const add = async (apiKey: string, path: string): Promise<Endpoint> => {
    const res = await api(apiKey, 'POST', '/webhooks', { url: receiver.url(path) });
    assert.equal(res.statusCode, 201, res.body);
    return res.json<Endpoint>();
  };
  const queued = async (endpointId: string) =>
    h.t.db.handle.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
      .select(['e.type', 'e.order_id'])
      .where('d.endpoint_id', '=', endpointId)
      .execute();

  it('an endpoint takes the mode of the key that made it, receives only that mode\'s events, and is out of the other mode\'s reach', async () => {
    const partner = await h.t.createPartner({ name: 'Modes' });
    const testKey = (await h.t.admin('POST', `/admin/v1/partners/${partner.id}/keys`, { sandbox: true })).json<{ api_key: string }>().api_key;
    const liveEndpoint = await add(partner.apiKey, '/live');
    const sandboxEndpoint = await add(testKey, '/sandbox');
    assert.equal(liveEndpoint.mode, 'live');
    assert.equal(sandboxEndpoint.mode, 'sandbox');

    const harness = { ...h, partner };
    const liveOrder = await createOrder(harness);
    const sandboxOrder = await createOrder(harness, {}, testKey);
    // A move after creation (the status_changed path of the lifecycle) too.
    assert.equal((await api(partner.apiKey, 'POST', `/orders/${liveOrder.id}/cancel`, {})).statusCode, 200);
    assert.equal((await api(testKey, 'POST', `/orders/${sandboxOrder.id}/cancel`, {})).statusCode, 200);
    const liveQueued = await queued(liveEndpoint.id);
    const sandboxQueued = await queued(sandboxEndpoint.id);
    assert.deepEqual(liveQueued.map((row) => row.order_id), [liveOrder.id, liveOrder.id]);
    assert.deepEqual(sandboxQueued.map((row) => row.order_id), [sandboxOrder.id, sandboxOrder.id]);
    assert.deepEqual(new Set(liveQueued.map((row) => row.type)), new Set(['order.created', 'order.status_changed']));

    // Each key lists, reads and changes its own mode's endpoints only: the other's are 404.
    const listed = async (key: string) => (await api(key, 'GET', '/webhooks')).json<{ webhooks: Endpoint[] }>().webhooks.map((e) => e.id);
    assert.deepEqual(await listed(partner.apiKey), [liveEndpoint.id]);
    assert.deepEqual(await listed(testKey), [sandboxEndpoint.id]);
    for (const [key, endpoint] of [
      [testKey, liveEndpoint],
      [partner.apiKey, sandboxEndpoint],
    ] as const) {
      for (const [method, url, body] of [
        ['PATCH', `/webhooks/${endpoint.id}`, { url: receiver.url('/stolen') }],
        ['DELETE', `/webhooks/${endpoint.id}`, undefined],
        ['POST', `/webhooks/${endpoint.id}/rotate-secret`, undefined],
        ['POST', `/webhooks/${endpoint.id}/test`, undefined],
        ['GET', `/webhooks/${endpoint.id}/deliveries`, undefined],
      ] as const) {
        const res = await api(key, method, url, body);
        assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`);
      }
    }
    const [delivery] = await h.t.db.handle.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', liveEndpoint.id).execute();
    const retried = await api(testKey, 'POST', `/webhooks/deliveries/${delivery?.id}/retry`);
    assert.equal(retried.statusCode, 404, retried.body);
    const row = await h.t.db.handle.db.selectFrom('webhook_endpoints').select('url').where('id', '=', liveEndpoint.id).executeTakeFirstOrThrow();
    assert.equal(row.url, receiver.url('/live'));
  });

  it('30 creates at once make exactly 10 endpoints (the cap holds under concurrency)', async () => {
    const partner = await h.t.createPartner({ name: 'Racer' });
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => api(partner.apiKey, 'POST', '/webhooks', { url: receiver.url(`/race/${i}`) })),
    );
    const statuses = answers.map((res) => res.statusCode);
    assert.equal(statuses.filter((status) => status === 201).length, 10, statuses.join(' '));
    assert.equal(statuses.filter((status) => status === 422).length, 20, statuses.join(' '));
    const stored = await h.t.db.handle.db
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('partner_id', '=', partner.id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(stored.n), 10);
  });

  it('the cabinet chooses the mode, and its creates meet the same cap, concurrent ones too', async () => {
    const { partnerId, client } = await cabinetPerson(h.t, { email: 'modes@example.com', password: 'correct horse battery staple 26' });
    // The create form carries the cabinet's mode (issue 31: the mode switch; live by default).
    await client.get('/cabinet/webhooks?mode=test');
    assert.match(client.lastBody, /<form[^>]*action="\/cabinet\/webhooks"[\s\S]*?name="mode" value="sandbox"/);
    const created = await client.post('/cabinet/webhooks', { url: receiver.url('/cabinet-sandbox'), mode: 'sandbox' });
    assert.equal(created.statusCode, 303, created.body);
    const modes = async () =>
      h.t.db.handle.db.selectFrom('webhook_endpoints').select(['url', 'mode']).where('partner_id', '=', partnerId).orderBy('created_at').execute();
    assert.deepEqual(await modes(), [{ url: receiver.url('/cabinet-sandbox'), mode: 'sandbox' }]);
    // The list shows the mode's endpoints, each with its mode; live mode does not list it.
    assert.match((await client.get('/cabinet/webhooks?mode=test')).body, /<td data-label="Mode">sandbox<\/td>/);
    assert.doesNotMatch((await client.get('/cabinet/webhooks?mode=live')).body, /<td data-label="Mode">sandbox<\/td>/);
    // A mode that is none is refused: told on the page the form returns to, nothing made.
    const bad = await client.post('/cabinet/webhooks', { url: receiver.url('/cabinet-bad'), mode: 'both' });
    assert.equal(bad.statusCode, 303, bad.body);
    assert.match(String(bad.headers.location), /problem=/);
    assert.equal((await modes()).length, 1);

    // Every form answers 303: a refusal past the cap goes back with its problem, a create with done.
    const forms = await Promise.all(
      Array.from({ length: 15 }, (_, i) => postAs(client, '/cabinet/webhooks', { url: receiver.url(`/cabinet-race/${i}`), mode: 'sandbox' })),
    );
    assert.equal(forms.filter((location) => !location.includes('problem=')).length, 9, forms.join(' '));
    const sandboxCount = (await modes()).filter((row) => row.mode === 'sandbox').length;
    assert.equal(sandboxCount, 10);
    // A live endpoint is still possible: each mode has a cap of its own.
    const live = await client.post('/cabinet/webhooks', { url: receiver.url('/cabinet-live'), mode: 'live' });
    assert.equal(live.statusCode, 303, live.body);
  });

  it('an endpoint the operator disabled cannot be re-enabled, re-pointed, deleted or made again with its URL', async () => {
    const endpoint = await add(sandboxKey, '/abuse');
    const off = await h.t.admin('POST', `/admin/v1/webhooks/${endpoint.id}/disable`, {});
    assert.equal(off.statusCode, 200, off.body);
    for (const [method, url, body] of [
      ['PATCH', `/webhooks/${endpoint.id}`, { enabled: true }],
      ['PATCH', `/webhooks/${endpoint.id}`, { url: receiver.url('/abuse-2') }],
      ['DELETE', `/webhooks/${endpoint.id}`, undefined],
      ['POST', '/webhooks', { url: receiver.url('/abuse') }],
    ] as const) {
      const res = await api(sandboxKey, method, url, body);
      assert.equal(res.statusCode, 409, `${method} ${url}: ${res.body}`);
      assert.equal(res.json<{ code: string }>().code, 'conflict');
    }
    // Nor with the partner's other key, nor by re-pointing another endpoint at it.
    assert.equal((await api(h.partner.apiKey, 'POST', '/webhooks', { url: receiver.url('/abuse') })).statusCode, 409);
    const other = await add(sandboxKey, '/other');
    assert.equal((await api(sandboxKey, 'PATCH', `/webhooks/${other.id}`, { url: receiver.url('/abuse') })).statusCode, 409);
    const row = await h.t.db.handle.db.selectFrom('webhook_endpoints').select(['url', 'enabled', 'disabled_reason']).where('id', '=', endpoint.id).executeTakeFirstOrThrow();
    assert.deepEqual(row, { url: receiver.url('/abuse'), enabled: false, disabled_reason: 'operator' });
    // Its description and events may still change: they send nothing.
    assert.equal((await api(sandboxKey, 'PATCH', `/webhooks/${endpoint.id}`, { description: 'paused' })).statusCode, 200);

    // Once the operator enables it, the URL is the partner's again.
    assert.equal((await h.t.admin('POST', `/admin/v1/webhooks/${endpoint.id}/enable`, {})).statusCode, 200);
    assert.equal((await api(sandboxKey, 'DELETE', `/webhooks/${endpoint.id}`)).statusCode, 204);
    assert.equal((await api(sandboxKey, 'POST', '/webhooks', { url: receiver.url('/abuse') })).statusCode, 201);
  });
});

/** A cabinet form post as a status, through the client's session (several at once). */
/** Where a form sent the browser (every cabinet form answers 303 to a page). */
async function postAs(client: CabinetClient, url: string, fields: Record<string, string>): Promise<string> {
  const res = await client.post(url, fields);
  assert.equal(res.statusCode, 303, res.body);
  return String(res.headers.location);
}
