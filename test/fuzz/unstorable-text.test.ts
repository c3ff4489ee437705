/**
 * Issue 26.8: text no database column can hold (a NUL byte: PostgreSQL's text and jsonb refuse
 * it; an unpaired surrogate: it has no UTF-8 form) and other control characters, and impossible
 * dates, were answered 500 where they reached the database. They are refused at the edge: 400
 * `bad_request` naming the field on the API, a 400 form error in the cabinet.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { cabinetPerson, type CabinetClient } from '../helpers/cabinet-client.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

function assertBadRequest(res: LightMyRequestResponse, field: RegExp): void {
  assert.equal(res.statusCode, 400, res.body);
  const body = res.json<{ detail: string; code: string }>();
  assert.equal(body.code, 'bad_request');
  assert.match(body.detail, field);
}

describe('unstorable text and impossible dates are 400, never 500', () => {
  let t: TestApp;
  let apiKey: string;
  let client: CabinetClient;
  before(async () => {
    t = await buildTestApp({ env: { WORKER: 'off' } });
    ({ apiKey } = await t.createPartner());
    ({ client } = await cabinetPerson(t, { email: 'ana@partner.example', password: 'a long and unusual passphrase 7' }));
  });
  after(() => t.close());

  const partner = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) =>
    t.app.inject({ method, url, headers: { authorization: `Bearer ${apiKey}` }, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });

  it('a NUL byte, another control character or a lone surrogate in `search` is 400 querystring/search', async () => {
    for (const value of ['%00', 'a%00b', '%01', '%1B%5B2J', '%7F']) {
      assertBadRequest(await partner('GET', `/api/v1/partner/orders?search=${value}`), /querystring\/search/);
    }
    // Tabs and ordinary text pass.
    assert.equal((await partner('GET', '/api/v1/partner/orders?search=a%09b')).statusCode, 200);
    assert.equal((await partner('GET', '/api/v1/partner/orders?search=%C3%A9t%C3%A9')).statusCode, 200);
  });

  it('a NUL byte or lone surrogate in a webhook description is 400 body/description; nothing is stored', async () => {
    for (const description of ['a\u0000b', '\u0000', 'x\ud800y', '\udfff', 'bell\u0007']) {
      assertBadRequest(await partner('POST', '/api/v1/partner/webhooks', { url: 'https://hooks.partner.example/x', description }), /body\/description/);
    }
    const listed = await partner('GET', '/api/v1/partner/webhooks');
    assert.equal(listed.json<{ webhooks: unknown[] }>().webhooks.length, 0);
    // A description with a line break is text as any other.
    const created = await partner('POST', '/api/v1/partner/webhooks', { url: 'https://hooks.partner.example/x', description: 'line one\nline two' });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json<{ id: string }>().id;
    assertBadRequest(await partner('PATCH', `/api/v1/partner/webhooks/${id}`, { description: 'a\u0000' }), /body\/description/);
  });

  it('a NUL byte inside a nested value or an object key is refused too (operator API)', async () => {
    const res = await t.admin('POST', '/admin/v1/partners', { name: 'Name\u0000' });
    assertBadRequest(res, /body\/name/);
  });

  it('the cabinet: a NUL byte in the search box or a webhook description, and an impossible date, are a 400 page, not a 500', async () => {
    const search = await client.get('/cabinet/orders?search=%00');
    assert.equal(search.statusCode, 400, search.body);
    assert.match(search.body, /cannot be stored|not a date/);
    for (const url of ['/cabinet/orders?from=2024-13-45', '/cabinet/orders?to=2024-02-30', '/cabinet/orders?from=2024-00-10']) {
      const res = await client.get(url);
      assert.equal(res.statusCode, 400, `${url}: ${res.body.slice(0, 200)}`);
      assert.match(res.body, /role="alert"[^<]*is not a date/);
      assert.match(res.body, /<form method="get" action="\/cabinet\/orders"/);
    }
    // A real date still filters.
    assert.equal((await client.get('/cabinet/orders?from=2024-02-29&to=2024-12-31')).statusCode, 200);
    await client.get('/cabinet/webhooks');
    const hook = await client.post('/cabinet/webhooks', { url: 'https://hooks.partner.example/cabinet', description: 'a\u0000b' });
    assert.equal(hook.statusCode, 400, hook.body);
    assert.match(hook.body, /cannot be stored/);
    await client.get('/cabinet/keys');
    const key = await client.post('/cabinet/keys', { label: 'x\u0000', kind: 'live' });
    assert.equal(key.statusCode, 400, key.body);
  });
});
