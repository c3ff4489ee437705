import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { Decimal } from '../../src/domain/money.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

interface Entry {
  id: string;
  actor: string;
  action: string;
  target: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  status: number;
  at: string;
  ip: string | null;
}

/**
 * docs/contract.md §12, issue 30: every operator action that may change something is in the audit log —
 * who, what, on what, before and after, when, from where — append-only, listed and exported as
 * CSV. "Every" is checked against the operator OpenAPI document: each POST, PUT, PATCH and
 * DELETE it lists is called once and must leave its entry.
 */
describe('the operator audit log', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: { WORKER: 'off', PRICE_POLL_SECONDS: '3600' } });
  });
  after(() => t?.close());

  const audit = async (query = ''): Promise<{ entries: Entry[]; next_cursor: string | null }> => {
    const res = await t.admin('GET', `/admin/v1/audit${query}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  it('every mutating operator route writes an entry, whatever it answers', async () => {
    const document = (await t.admin('GET', '/admin/v1/openapi.json')).json<{ paths: Record<string, Record<string, unknown>> }>();
    const mutating = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations)
        .filter((method) => ['post', 'put', 'patch', 'delete'].includes(method))
        .map((method) => ({ method: method.toUpperCase() as 'POST' | 'PUT' | 'PATCH' | 'DELETE', path })),
    );
    assert.ok(mutating.length >= 25, `${mutating.length} mutating operator routes`);
    for (const { method, path } of mutating) {
      // Parameters get values of the right shape that name nothing: each call answers 4xx or
      // acts on nothing, and is an action all the same.
      const url = path.replace(/\{(\w+)\}/g, (_match, name: string) => (name === 'coin' ? 'ZZZ' : name === 'chain' ? 'ZZZ' : name === 'key_id' ? 'pk_00000000000000000000' : randomUUID()));
      const res = await t.admin(method, url, method === 'DELETE' ? undefined : {});
      const route = path.replace(/\{(\w+)\}/g, ':$1');
      const { entries } = await audit(`?action=${encodeURIComponent(`${method} ${route}`)}&limit=1`);
      assert.equal(entries[0]?.action, `${method} ${route}`, `${method} ${path} left no entry`);
      assert.equal(entries[0]?.status, res.statusCode, `${method} ${path}`);
      assert.equal(entries[0]?.actor, 'token:ADMIN_TOKEN');
    }
  });

  it('a change records the target before and after, who, when and from where', async () => {
    const row = t.runtime.catalog.all().find((currency) => currency.coin === 'LTC' && currency.network === 'LTC');
    assert.ok(row !== undefined);
    const res = await t.admin('PATCH', `/admin/v1/currencies/${row.id}`, { min_amount: '0.07' });
    assert.equal(res.statusCode, 200, res.body);
    const [entry] = (await audit(`?target=${encodeURIComponent(`currencies/${row.id}`)}&limit=1`)).entries;
    assert.equal(entry?.action, 'PATCH /admin/v1/currencies/:id');
    assert.equal(entry?.target, `currencies/${row.id}`);
    // As the database holds them: NUMERIC(38, 18) text, exact.
    assert.equal(new Decimal(String(entry?.before?.min_amount)).toFixed(), '0.05');
    assert.equal(new Decimal(String(entry?.after?.min_amount)).toFixed(), '0.07');
    assert.equal(entry?.status, 200);
    assert.ok(entry?.ip !== null && entry?.ip !== '');
    assert.ok(Math.abs(Date.parse(entry?.at ?? '') - Date.now()) < 60_000, `at ${entry?.at}`);
  });

  it('a create names what it made; credentials never reach the log', async () => {
    const partner = await t.admin('POST', '/admin/v1/partners', { name: 'Audited Wallet' });
    assert.equal(partner.statusCode, 201, partner.body);
    const id = partner.json<{ id: string }>().id;
    const [created] = (await audit(`?action=${encodeURIComponent('POST /admin/v1/partners')}&limit=1`)).entries;
    assert.equal(created?.target, `partners/${id}`);
    assert.equal(created?.after?.name, 'Audited Wallet');
    const key = await t.admin('POST', `/admin/v1/partners/${id}/keys`, {});
    assert.equal(key.statusCode, 201, key.body);
    const apiKey = key.json<{ api_key: string }>().api_key;
    const log = await t.admin('GET', '/admin/v1/audit?limit=1000');
    assert.equal(log.body.includes(apiKey), false, 'the new key is not in the log');
    const csv = await t.app.inject({ method: 'GET', url: '/admin/v1/audit?limit=1000', headers: { authorization: `Bearer ${t.adminToken}`, accept: 'text/csv' } });
    assert.equal(csv.body.includes(apiKey), false);
  });

  it('a request the guard refuses is not an action (no actor), and a GET is not one either', async () => {
    const before = (await audit('?limit=1')).entries[0]?.id;
    const refused = await t.app.inject({ method: 'POST', url: '/admin/v1/partners', payload: { name: 'x' }, headers: { authorization: 'Bearer wrong' } });
    assert.equal(refused.statusCode, 401);
    await t.admin('GET', '/admin/v1/partners');
    assert.equal((await audit('?limit=1')).entries[0]?.id, before);
  });

  it('is exported as CSV by Accept, filtered by action, target and time, and paged by cursor', async () => {
    const csv = await t.app.inject({
      method: 'GET',
      url: `/admin/v1/audit?action=${encodeURIComponent('PATCH /admin/v1/currencies')}`,
      headers: { authorization: `Bearer ${t.adminToken}`, accept: 'text/csv' },
    });
    assert.equal(csv.statusCode, 200);
    assert.match(csv.headers['content-type'] as string, /^text\/csv/);
    const [header, ...records] = csv.body.split('\r\n').filter((line) => line !== '');
    assert.equal(header, 'at,actor,action,target,status,ip,before,after');
    assert.ok(records.length >= 2);
    assert.ok(records.every((record) => record.includes('PATCH /admin/v1/currencies/:id')));
    const first = await audit('?limit=2');
    assert.equal(first.entries.length, 2);
    assert.ok(first.next_cursor !== null);
    const second = await audit(`?limit=2&cursor=${first.next_cursor}`);
    assert.ok(Number(second.entries[0]?.id) < Number(first.entries[1]?.id));
    const future = new Date(Date.now() + 3600_000).toISOString();
    assert.deepEqual((await audit(`?from=${encodeURIComponent(future)}`)).entries, []);
    assert.equal((await t.admin('GET', `/admin/v1/audit?from=${encodeURIComponent(future)}&to=${encodeURIComponent(future)}`)).statusCode, 400);
  });

  it('a refused request with text jsonb cannot hold (NUL, a lone surrogate) or a huge body is logged all the same', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/signer/pause',
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json' },
      payload: `{"by":"a\\u0000b","reason":"\\udfff","x":"${'y'.repeat(20_000)}"}`,
    });
    assert.ok(res.statusCode >= 400 && res.statusCode < 500, res.body);
    const [entry] = (await audit(`?action=${encodeURIComponent('POST /admin/v1/signer/pause')}&limit=1`)).entries;
    assert.equal(entry?.status, res.statusCode);
    assert.match(String(entry?.after?.omitted), /^\d+ characters, more than the log keeps$/);
    const small = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/signer/pause',
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json' },
      payload: '{"by":"a\\u0000b","reason":"\\udfff"}',
    });
    const [kept] = (await audit(`?action=${encodeURIComponent('POST /admin/v1/signer/pause')}&limit=1`)).entries;
    assert.equal(kept?.status, small.statusCode);
    assert.deepEqual(kept?.after, { by: 'a\ufffdb', reason: '\ufffd' });
  });

  it('is append-only in the database: UPDATE, DELETE and TRUNCATE are refused', async () => {
    const db = t.db.handle.db;
    await assert.rejects(sql`update operator_audit set actor = 'someone else'`.execute(db), /append-only/);
    await assert.rejects(sql`delete from operator_audit`.execute(db), /append-only/);
    await assert.rejects(sql`truncate operator_audit`.execute(db), /append-only/);
  });
});
