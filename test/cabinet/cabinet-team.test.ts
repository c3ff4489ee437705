import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CabinetClient, cabinetPerson } from '../helpers/cabinet-client.js';
import { htmlProblems } from '../helpers/html-check.js';
import { createOrder, getOrder, startHarness, type Harness } from '../lifecycle/lifecycle-helpers.js';

const PASSWORD = 'saffron glacier tunnel orbit';

/**
 * Team roles: the operator's invitation makes an owner; an owner invites a developer and a
 * viewer (the link shown once), changes roles and removes people; a developer manages keys
 * and webhooks but not the markup or the people; a viewer changes nothing. Every refusal is
 * the server's (403 page), and the forms a role cannot use are not on its pages.
 */
describe('cabinet team roles', () => {
  let h: Harness;
  let owner: CabinetClient;
  const people: Record<'developer' | 'viewer', CabinetClient> = {} as never;
  const ids: Record<string, string> = {};

  before(async () => {
    h = await startHarness();
    ({ client: owner } = await cabinetPerson(h.t, { email: 'owner@team.example', password: PASSWORD, partnerId: h.partner.id }));
  });
  after(() => h.t.close());

  const personId = async (email: string) =>
    (await h.t.db.handle.db.selectFrom('cabinet_users').select(['id', 'role']).where('email', '=', email).executeTakeFirstOrThrow());

  it("the operator's invitation makes an owner; the owner's invitations give the role chosen, the link shown once", async () => {
    assert.equal((await personId('owner@team.example')).role, 'owner');
    const team = await owner.get('/cabinet/team');
    assert.equal(team.statusCode, 200);
    assert.match(team.body, /<td data-label="Role">Owner<\/td>/);
    assert.deepEqual(htmlProblems(team.body), []);
    for (const role of ['developer', 'viewer'] as const) {
      const shown = await owner.submit('/cabinet/team/invitations', { email: `${role}@team.example`, role });
      const url = /<input type="text" id="invitation-link" value="([^"]+)"/.exec(shown.body)?.[1];
      assert.ok(url !== undefined, shown.body.slice(0, 2000));
      assert.match(shown.body, new RegExp(`Invitation for ${role}@team.example \\(${role}\\)`));
      assert.deepEqual(htmlProblems(shown.body), []);
      // A reload of the same address shows the link no more.
      const again = await owner.get('/cabinet/team');
      assert.doesNotMatch(again.body, /invitation-link/);
      const client = new CabinetClient(h.t, role === 'developer' ? '198.51.100.61' : '198.51.100.62');
      const path = new URL(url).pathname;
      await client.get(path);
      assert.equal((await client.post(path, { password: PASSWORD, confirm: PASSWORD })).statusCode, 303);
      await client.signIn(`${role}@team.example`, PASSWORD);
      people[role] = client;
      const row = await personId(`${role}@team.example`);
      assert.equal(row.role, role);
      ids[role] = row.id;
    }
    // The sealed token is gone once shown; only its hash stays.
    const sealed = await h.t.db.handle.db.selectFrom('cabinet_invitations').select('token_sealed').where('email', '=', 'viewer@team.example').executeTakeFirstOrThrow();
    assert.equal(sealed.token_sealed, null);
    // An invitation for an existing account is refused, said on the page.
    const taken = await owner.submit('/cabinet/team/invitations', { email: 'viewer@team.example', role: 'viewer' });
    assert.match(taken.body, /class="problem" role="alert">An account with viewer@team.example exists already/);
  });

  it('a developer manages keys and webhooks, not the markup nor the people: refused by the server with a 403 page, the forms left out', async () => {
    const developer = people.developer;
    const keys = await developer.get('/cabinet/keys');
    assert.match(keys.body, /<form method="post" action="\/cabinet\/keys"/);
    assert.equal((await developer.post('/cabinet/keys', { label: 'dev key', kind: 'live', scope: 'full' })).statusCode, 303);
    const settings = await developer.get('/cabinet/settings');
    assert.doesNotMatch(settings.body, /action="\/cabinet\/settings"/);
    assert.match(settings.body, /action="\/cabinet\/settings\/cors-origins"/);
    assert.match(settings.body, /You are a developer of this team: changing the markup needs an owner\./);
    const markup = await developer.post('/cabinet/settings', { markup_bps: '10' });
    assert.equal(markup.statusCode, 403);
    assert.match(String(markup.headers['content-type']), /^text\/html/);
    assert.match(markup.body, /<h1>Not allowed for your role<\/h1>/);
    assert.deepEqual(htmlProblems(markup.body), []);
    const team = await developer.get('/cabinet/team');
    assert.doesNotMatch(team.body, /action="\/cabinet\/team\/invitations"/);
    assert.doesNotMatch(team.body, /\/remove"/);
    assert.equal((await developer.post('/cabinet/team/invitations', { email: 'x@team.example', role: 'owner' })).statusCode, 403);
    assert.equal((await developer.post(`/cabinet/team/${ids.viewer}/role`, { role: 'owner' })).statusCode, 403);
    assert.equal((await developer.post(`/cabinet/team/${ids.viewer}/remove`, {})).statusCode, 403);
    assert.equal((await personId('viewer@team.example')).role, 'viewer');
  });

  it('a viewer reads every page and changes nothing', async () => {
    const viewer = people.viewer;
    const order = await createOrder(h);
    const endpoint = await h.t.runtime.webhooks.create({ partnerId: h.partner.id, mode: 'live' }, { url: 'http://127.0.0.1:9/team' });
    for (const path of ['/cabinet', '/cabinet/orders', `/cabinet/orders/${order.id}`, '/cabinet/keys', '/cabinet/webhooks', `/cabinet/webhooks/${endpoint.endpoint.id}`, '/cabinet/settings', '/cabinet/team', '/cabinet/account']) {
      const page = await viewer.get(path);
      assert.equal(page.statusCode, 200, path);
      assert.deepEqual(htmlProblems(page.body), [], path);
      // Only the person's own forms (sign out, mode switch, account) are there.
      const actions = [...page.body.matchAll(/<form method="post" action="([^"]+)"/g)].map((match) => match[1]);
      assert.deepEqual(actions.filter((action) => !['/cabinet/logout', '/cabinet/mode'].includes(action!) && !action!.startsWith('/cabinet/account')), [], path);
    }
    const refused: Array<[string, Record<string, string>]> = [
      ['/cabinet/keys', { label: 'x', kind: 'live' }],
      ['/cabinet/webhooks', { url: 'http://127.0.0.1:9/viewer' }],
      [`/cabinet/webhooks/${endpoint.endpoint.id}/test`, {}],
      [`/cabinet/webhooks/${endpoint.endpoint.id}/delete`, {}],
      [`/cabinet/orders/${order.id}/actions/cancel`, {}],
      ['/cabinet/settings', { markup_bps: '5' }],
      ['/cabinet/settings/cors-origins', { cors_origins: 'https://a.example' }],
      ['/cabinet/team/invitations', { email: 'y@team.example', role: 'viewer' }],
    ];
    for (const [path, fields] of refused) {
      const res = await viewer.post(path, fields);
      assert.equal(res.statusCode, 403, path);
      assert.match(res.body, /Your role is viewer: this change needs (an owner|a developer or an owner)\. Nothing was changed\./, path);
    }
    assert.equal((await h.t.runtime.webhooks.list(h.partner.id)).length, 1);
    assert.equal((await getOrder(h, order.id)).status, 'waiting_deposit', 'the cancel was refused');
    // Their own account stays theirs: the password form answers as for anyone.
    assert.equal((await viewer.post('/cabinet/account/sessions/revoke-others', {})).statusCode, 303);
  });

  it('owners change roles and remove people; the last owner cannot be demoted or removed, nor anyone remove themselves', async () => {
    const ownerId = (await personId('owner@team.example')).id;
    assert.match((await owner.submit(`/cabinet/team/${ids.viewer}/role`, { role: 'developer' })).body, /role="status">The role is changed/);
    assert.equal((await personId('viewer@team.example')).role, 'developer');
    // The promoted person's next request follows the new role.
    assert.equal((await people.viewer.post('/cabinet/keys', { label: 'now a developer', kind: 'live' })).statusCode, 303);
    assert.match((await owner.submit(`/cabinet/team/${ownerId}/role`, { role: 'viewer' })).body, /Another owner changes your role/);
    assert.match((await owner.submit(`/cabinet/team/${ownerId}/remove`, {})).body, /You cannot remove yourself/);
    // A second owner may demote the first; then the second is the only one and stays.
    await owner.submit(`/cabinet/team/${ids.developer}/role`, { role: 'owner' });
    await people.developer.get('/cabinet/team');
    assert.match((await people.developer.submit(`/cabinet/team/${ownerId}/role`, { role: 'developer' })).body, /The role is changed/);
    await owner.get('/cabinet/team');
    assert.equal((await owner.post(`/cabinet/team/${ids.developer}/role`, { role: 'viewer' })).statusCode, 403, 'no longer an owner');
    // Removal: the person's sessions end at once.
    await people.developer.get('/cabinet/team');
    assert.match((await people.developer.submit(`/cabinet/team/${ids.viewer}/remove`, {})).body, /The person is removed/);
    assert.equal((await people.viewer.get('/cabinet')).statusCode, 303);
    const recorded = await h.t.db.handle.db.selectFrom('cabinet_account_actions').selectAll().where('person_id', '=', ids.viewer!).executeTakeFirstOrThrow();
    assert.deepEqual([recorded.action, recorded.actor], ['remove_person', 'person']);
  });
});
