/**
 * Issue 26.7: the cabinet was outside the rate limits (a partner limited to 5 requests a minute
 * sent 40 test pings and created 45 keys from it). Its actions now spend the partner's budget,
 * the one its keys share, and a partner may have at most MAX_API_KEYS_PER_PARTNER unrevoked keys
 * of each kind, whoever asks (cabinet or operator).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cabinetPerson, type CabinetClient } from '../helpers/cabinet-client.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';

const PER_MINUTE = 5;
const KEY_CAP = 4;

describe("cabinet actions spend the partner's rate-limit budget; keys are capped per partner", () => {
  const clock = new ManualClock(new Date('2026-05-01T10:00:00.000Z'));
  let t: TestApp;
  before(async () => {
    // One key's budget for the whole partner, as in the report: 5 requests a minute.
    t = await buildTestApp({ clock, env: { WORKER: 'off', PARTNER_RATE_LIMIT_KEYS: '1', MAX_API_KEYS_PER_PARTNER: String(KEY_CAP) } });
  });
  after(() => t.close());

  it('test pings from the cabinet stop at the budget (429 page, nothing sent), and the API key then finds it spent too', async () => {
    const partner = await t.createPartner({ name: 'Limited', rate_limit_per_minute: PER_MINUTE });
    const { client } = await cabinetPerson(t, { email: 'ops@limited.example', password: 'a long and unusual passphrase 7', partnerId: partner.id });
    await client.get('/cabinet/webhooks');
    const created = await client.post('/cabinet/webhooks', { url: 'https://hooks.limited.example/x' });
    assert.equal(created.statusCode, 303, created.body);
    const endpoint = String(created.headers.location).split('?')[0] ?? '';
    await client.get(endpoint);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await client.post(`${endpoint}/test`, {})).statusCode);
    // The endpoint's creation was the first of the 5.
    assert.deepEqual(statuses, [...Array<number>(PER_MINUTE - 1).fill(303), ...Array<number>(12 - PER_MINUTE + 1).fill(429)]);
    const refused = await client.post(`${endpoint}/test`, {});
    assert.equal(refused.statusCode, 429);
    assert.match(String(refused.headers['retry-after']), /^\d+$/);
    assert.match(refused.body, /Too many requests/);
    // Only the pings let through were queued.
    const deliveries = await t.app.inject({ method: 'GET', url: `/api/v1/partner/webhooks/${endpoint.split('/').pop() ?? ''}/deliveries`, headers: { authorization: `Bearer ${partner.apiKey}` } });
    assert.equal(deliveries.statusCode, 429, 'the API shares the budget the cabinet spent');
    // A new minute, a new budget: the page and the API answer again.
    clock.advance(61_000);
    const listed = await t.app.inject({ method: 'GET', url: `/api/v1/partner/webhooks/${endpoint.split('/').pop() ?? ''}/deliveries`, headers: { authorization: `Bearer ${partner.apiKey}` } });
    assert.equal(listed.statusCode, 200, listed.body);
    assert.equal(listed.json<{ deliveries: unknown[] }>().deliveries.length, PER_MINUTE - 1);
    assert.equal((await client.post(`${endpoint}/test`, {})).statusCode, 303);
    // Reading pages spends nothing.
    for (let i = 0; i < 10; i++) assert.equal((await client.get('/cabinet/webhooks')).statusCode, 200);
  });

  it('key creation from the cabinet spends the budget too', async () => {
    clock.advance(61_000);
    const partner = await t.createPartner({ name: 'Key maker', rate_limit_per_minute: PER_MINUTE });
    const { client } = await cabinetPerson(t, { email: 'keys@maker.example', password: 'a long and unusual passphrase 7', partnerId: partner.id });
    await client.get('/cabinet/keys');
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await client.post('/cabinet/keys', { label: `k${i}`, kind: 'sandbox' })).statusCode);
    assert.deepEqual(statuses.slice(PER_MINUTE), [429, 429, 429]);
    const keys = await t.admin('GET', `/admin/v1/partners/${partner.id}/keys`);
    assert.ok(keys.json<unknown[]>().length <= 1 + KEY_CAP);
  });

  let client: CabinetClient;
  let partnerId: string;
  it(`a partner holds at most ${KEY_CAP} unrevoked live keys: the cabinet says so on the form, the operator API answers 409`, async () => {
    clock.advance(61_000);
    const partner = await t.createPartner({ name: 'Many keys', rate_limit_per_minute: 1000 });
    partnerId = partner.id;
    ({ client } = await cabinetPerson(t, { email: 'many@keys.example', password: 'a long and unusual passphrase 7', partnerId }));
    await client.get('/cabinet/keys');
    // createPartner issued one live key.
    for (let i = 1; i < KEY_CAP; i++) assert.equal((await client.post('/cabinet/keys', { label: `live ${i}`, kind: 'live' })).statusCode, 303);
    await client.get('/cabinet/keys');
    const over = await client.submit('/cabinet/keys', { label: 'one too many', kind: 'live' });
    assert.match(over.body, /role="alert">You already have as many live keys as a partner may have/);
    const operator = await t.admin('POST', `/admin/v1/partners/${partnerId}/keys`);
    assert.equal(operator.statusCode, 409, operator.body);
    const body = operator.json<{ code: string; detail: string }>();
    assert.equal(body.code, 'conflict');
    assert.match(body.detail, new RegExp(`already has ${KEY_CAP} active live keys, the most it may have \\(${KEY_CAP}\\)`));
    // Sandbox keys are counted apart, with the same cap.
    for (let i = 0; i < KEY_CAP; i++) assert.equal((await t.admin('POST', `/admin/v1/partners/${partnerId}/keys`, { sandbox: true })).statusCode, 201);
    assert.equal((await t.admin('POST', `/admin/v1/partners/${partnerId}/keys`, { sandbox: true })).statusCode, 409);
    // Revoking one makes room for one.
    const listed = (await t.admin('GET', `/admin/v1/partners/${partnerId}/keys`)).json<Array<{ key_id: string; sandbox: boolean }>>();
    const live = listed.find((key) => !key.sandbox);
    assert.ok(live !== undefined);
    assert.equal((await t.admin('DELETE', `/admin/v1/keys/${live.key_id}`)).statusCode, 204);
    assert.equal((await t.admin('POST', `/admin/v1/partners/${partnerId}/keys`)).statusCode, 201);
    assert.equal((await t.admin('POST', `/admin/v1/partners/${partnerId}/keys`)).statusCode, 409);
  });

  it('creations at once cannot pass the cap together', async () => {
    const partner = await t.createPartner({ name: 'Racer' });
    // From several addresses: the operator token's failure throttle counts each attempt until it succeeds.
    const burst = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        t.operator({ method: 'POST', url: `/admin/v1/partners/${partner.id}/keys`, headers: { authorization: `Bearer ${t.adminToken}` }, remoteAddress: `192.0.2.${20 + i}` }),
      ),
    );
    const created = burst.filter((res) => res.statusCode === 201).length;
    assert.deepEqual(burst.filter((res) => res.statusCode !== 201 && res.statusCode !== 409).map((res) => res.body), []);
    assert.equal(created, KEY_CAP - 1);
    assert.equal(burst.filter((res) => res.statusCode === 409).length, 12 - created);
    const keys = (await t.admin('GET', `/admin/v1/partners/${partner.id}/keys`)).json<Array<{ revoked_at: string | null }>>();
    assert.equal(keys.filter((key) => key.revoked_at === null).length, KEY_CAP);
  });
});
