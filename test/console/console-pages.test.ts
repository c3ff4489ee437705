import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { totpCode, totpStep } from '../../src/domain/totp.js';
import { CabinetClient } from '../helpers/cabinet-client.js';
import { htmlProblems } from '../helpers/html-check.js';
import { advance, createOrder, shortFixedOrder, startHarness, storedOrder, type Harness } from '../lifecycle/lifecycle-helpers.js';
import { CONSOLE_PASSWORD, consolePerson, orderWithFailedExchange } from './console-helpers.js';

/**
 * The operator console over the real HTTP stack (docs/decisions.md, "Operator console"):
 * sign-in with required two-factor, the attention queue and its actions, search, order detail,
 * roles, personal tokens, people, and the audit log naming the person.
 */
describe('operator console pages', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ REFUND_HOLD_MINUTES: '60' });
  });
  after(() => h.t.close());

  type AuditEntry = { actor: string; action: string; target: string | null; status: number };
  const audit = async (actor: string): Promise<AuditEntry[]> =>
    (await h.t.admin('GET', `/admin/v1/audit?actor=${encodeURIComponent(actor)}`)).json<{ entries: AuditEntry[] }>().entries;

  it('nothing opens without a session, or before the second factor; a second sign-in asks for a code', async () => {
    const stranger = new CabinetClient(h.t, '198.51.100.90');
    const res = await stranger.get('/console');
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/console/login');
    assert.equal((await stranger.get('/console/nope')).statusCode, 404);
    const { secret } = await consolePerson(h.t, h.clock, { email: 'again@ops.example', role: 'viewer', address: '198.51.100.91' });
    const second = new CabinetClient(h.t, '198.51.100.92');
    await second.get('/console/login');
    await second.post('/console/login', { email: 'again@ops.example', password: CONSOLE_PASSWORD });
    assert.equal((await second.get('/console')).headers.location, '/console/login/code', 'pending its code');
    const codePage = await second.get('/console/login/code');
    assert.match(codePage.body, /Two-factor code/);
    assert.equal((await second.post('/console/login/code', { code: '000000' })).statusCode, 401);
    const ok = await second.post('/console/login/code', { code: totpCode(secret, totpStep(h.clock.now())) });
    assert.equal(ok.statusCode, 303);
    assert.equal((await second.get('/console')).statusCode, 200);
    assert.equal((await second.post('/console/account/tokens', { label: 'x', role: 'viewer' }, { csrf: 'forged' })).statusCode, 403, 'CSRF');
  });

  it('support resolves a held refund from the attention queue; the audit log names the person', async () => {
    const order = await shortFixedOrder(h);
    assert.equal(order.status, 'refunding');
    const { client } = await consolePerson(h.t, h.clock, { email: 'support@ops.example', role: 'support' });
    const queue = await client.get('/console');
    assert.equal(queue.statusCode, 200);
    assert.deepEqual(htmlProblems(queue.body), []);
    assert.match(queue.body, new RegExp(`Continue ${order.short_id}`));
    const page = await client.submit(`/console/orders/${order.id}/continue`, { back: '/console' });
    assert.match(page.body, /The order continues/);
    assert.doesNotMatch(page.body, new RegExp(`Continue ${order.short_id}`));
    const entries = await audit('person:support@ops.example');
    assert.ok(entries.some((entry) => entry.action === 'POST /console/orders/:id/continue' && entry.target === `orders/${order.id}` && entry.status === 303), JSON.stringify(entries));
    // A second try is refused in words, and is in the log too.
    const again = await client.submit(`/console/orders/${order.id}/continue`, { back: `/console/orders/${order.id}` });
    assert.match(again.body, /role="alert">[^<]*not possible now/);
  });

  it('finds an order by short id in any case, with or without its prefix, by address and by partner', async () => {
    const order = await shortFixedOrder(h);
    const { client } = await consolePerson(h.t, h.clock, { email: 'finder@ops.example', role: 'viewer' });
    const bare = order.short_id.split('-')[1]!.toLowerCase();
    for (const term of [order.short_id, order.short_id.toLowerCase(), bare, order.id, order.deposit_address as string]) {
      const found = await client.get(`/console/orders?q=${encodeURIComponent(term)}`);
      assert.match(found.body, new RegExp(`href="/console/orders/${order.id}"`), term);
    }
    const detail = await client.get(`/console/orders/${order.id}`);
    assert.deepEqual(htmlProblems(detail.body), []);
    assert.match(detail.body, /Timeline/);
    assert.doesNotMatch(detail.body, /Refund now/, 'a viewer sees no action');
    const refused = await client.post(`/console/orders/${order.id}/refund`, { back: '/console' });
    assert.equal(refused.statusCode, 403, 'a viewer cannot act');
    assert.match(refused.body, /needs the support role/);
  });

  it('support continues a stuck order: its step is due now with a fresh budget; refused in another status', async () => {
    await advance(h, 0);
    const stuck = await orderWithFailedExchange(h);
    await advance(h, 31 * 60_000);
    const { client } = await consolePerson(h.t, h.clock, { email: 'unstick@ops.example', role: 'support', address: '198.51.100.93' });
    const queue = await client.get('/console');
    assert.match(queue.body, new RegExp(`Continue ${stuck.short_id}<`));
    assert.match(queue.body, new RegExp(`Fail ${stuck.short_id}<`));
    const detail = await client.get(`/console/orders/${stuck.id}`);
    assert.match(detail.body, new RegExp(`Continue ${stuck.short_id}: run its exchange again now`));
    const page = await client.submit(`/console/orders/${stuck.id}/resume`, { back: '/console' });
    assert.match(page.body, /The order continues: its step runs again/);
    const row = await storedOrder(h, stuck.id);
    assert.deepEqual({ status: row.status, attempts: row.attempts, next: row.next_attempt_at }, { status: 'exchanging', attempts: 0, next: null });
    const entries = await audit('person:unstick@ops.example');
    assert.ok(entries.some((entry) => entry.action === 'POST /console/orders/:id/resume' && entry.target === `orders/${stuck.id}` && entry.status === 303), JSON.stringify(entries));
    // The operator API's twin, by short id; an order waiting for its deposit is not stuck.
    assert.equal((await h.t.admin('POST', `/admin/v1/orders/${stuck.short_id.toLowerCase()}/resume`)).statusCode, 200);
    await advance(h, 0);
    const waiting = await createOrder(h);
    const refused = await h.t.admin('POST', `/admin/v1/orders/${waiting.id}/resume`);
    assert.equal(refused.statusCode, 409, refused.body);
    assert.match(refused.json<{ detail: string }>().detail, /this one is waiting_deposit/);
    assert.equal((await h.t.admin('POST', '/admin/v1/orders/00000000-0000-4000-8000-000000000000/resume')).statusCode, 404);
    await h.t.runtime.worker.tick();
    assert.equal((await storedOrder(h, stuck.id)).status, 'sending', 'the worker ran the exchange at its next pass');
  });

  it('the console and GET /admin/v1/orders?q= are one search: partner, a cabinet person’s email, an external id; the Link header is declared', async () => {
    await advance(h, 0);
    const order = await createOrder(h, { external_id: 'console-pages-ext-1' });
    const invited = await h.t.admin('POST', `/admin/v1/partners/${h.partner.id}/invitations`, { email: 'searchable@partner.example' });
    const link = new URL(invited.json<{ url: string }>().url).pathname;
    h.t.secrets.add(link.split('/').pop() ?? '', 'cabinet invitation');
    const person = new CabinetClient(h.t, '198.51.100.94');
    await person.get(link);
    assert.equal((await person.post(link, { password: 'amber harbour quiet lantern', confirm: 'amber harbour quiet lantern' })).statusCode, 303);
    const { client } = await consolePerson(h.t, h.clock, { email: 'searcher@ops.example', role: 'viewer', address: '198.51.100.95' });
    for (const term of ['console-pages-ext-1', 'searchable@partner.example', 'SEARCHABLE@partner.example', 'test partn']) {
      const api = await h.t.admin('GET', `/admin/v1/orders?q=${encodeURIComponent(term)}&limit=500`);
      assert.equal(api.statusCode, 200, api.body);
      assert.ok(api.json<{ id: string }[]>().some((row) => row.id === order.id), `API: ${term}`);
      assert.match((await client.get(`/console/orders?q=${encodeURIComponent(term)}`)).body, new RegExp(`href="/console/orders/${order.id}"`), `console: ${term}`);
    }
    const none = await h.t.admin('GET', '/admin/v1/orders?q=nobody%40nowhere.example');
    assert.deepEqual(none.json<unknown[]>(), []);
    const paged = await h.t.admin('GET', `/admin/v1/orders?q=${encodeURIComponent('Test Partner')}&limit=1`);
    assert.match(String(paged.headers.link), /^<\/admin\/v1\/orders\?.*cursor=.*>; rel="next"$/);
    const document = (await h.t.admin('GET', '/admin/v1/openapi.json')).json<{ paths: Record<string, { get: { responses: Record<string, { headers?: Record<string, unknown> }> } }> }>();
    assert.ok(document.paths['/admin/v1/orders']?.get.responses['200']?.headers?.link !== undefined, 'Link is declared in the 200 response');
  });

  it('an admin invites a person and changes a role; a person makes a token the API accepts, then revokes it', async () => {
    const { client } = await consolePerson(h.t, h.clock, { email: 'admin@ops.example', role: 'admin' });
    const people = await client.get('/console/people');
    assert.deepEqual(htmlProblems(people.body), []);
    const invited = await client.post('/console/people', { email: 'new@ops.example', role: 'finance', name: 'New Person' });
    assert.equal(invited.statusCode, 200);
    const link = /id="invitation-link" class="mono" readonly value="([^"]+)"/.exec(invited.body)?.[1];
    assert.ok(link !== undefined && link.includes('/console/invitation/'), invited.body);
    h.t.secrets.add(new URL(link).pathname.split('/').pop() ?? '', 'console invitation');
    const created = await client.post('/console/account/tokens', { label: 'automation', role: 'admin' });
    const token = /id="token-value" class="mono" readonly value="([^"]+)"/.exec(created.body)?.[1] ?? '';
    assert.match(token, /^opt_/);
    h.t.secrets.add(token, 'console token');
    const listed = await h.t.operator({ method: 'GET', url: '/admin/v1/partners', headers: { authorization: `Bearer ${token}` } });
    assert.equal(listed.statusCode, 200);
    const account = await client.get('/console/account');
    const tokenId = /action="\/console\/account\/tokens\/([0-9a-f-]{36})\/revoke"/.exec(account.body)?.[1] ?? '';
    await client.submit(`/console/account/tokens/${tokenId}/revoke`, {});
    assert.equal((await h.t.operator({ method: 'GET', url: '/admin/v1/partners', headers: { authorization: `Bearer ${token}` } })).statusCode, 401);
    const actions = (await audit('person:admin@ops.example')).map((entry) => entry.action);
    assert.ok(actions.includes('POST /console/people'), actions.join());
    assert.ok(actions.includes('POST /console/account/tokens/:id/revoke'), actions.join());
    const log = await client.get('/console/audit?actor=person%3Aadmin%40ops.example');
    assert.deepEqual(htmlProblems(log.body), []);
    assert.match(log.body, /POST \/console\/people/);
    const csv = await client.get('/console/audit.csv?actor=person%3Aadmin%40ops.example');
    assert.match(String(csv.headers['content-type']), /text\/csv/);
    assert.match(csv.body.split('\r\n')[0]!, /^id,at,actor,action,target,status,ip,before,after$/);
    assert.match(csv.body, /person:admin@ops\.example,POST \/console\/people/);
  });
});
