import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { totpCode, totpStep } from '../../src/domain/totp.js';
import { CabinetClient } from '../helpers/cabinet-client.js';
import { htmlProblems } from '../helpers/html-check.js';
import { shortFixedOrder, startHarness, type Harness } from '../lifecycle/lifecycle-helpers.js';
import { CONSOLE_PASSWORD, consolePerson } from './console-helpers.js';

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
