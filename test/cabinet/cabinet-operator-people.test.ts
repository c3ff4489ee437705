import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { totpCode, totpStep } from '../../src/domain/totp.js';
import { runAdminCli } from '../helpers/admin-cli.js';
import { CabinetClient, cabinetPerson } from '../helpers/cabinet-client.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';

const PASSWORD = 'harvest pebble nimbus ledger';
const NEW_PASSWORD = 'orchid tundra magnet velvet';

interface Person {
  id: string;
  email: string;
  two_factor: boolean;
  sessions: number;
  created_at: string;
}
interface Action {
  person_id: string;
  email: string;
  action: string;
  actor: string;
  clear_2fa: boolean;
  sessions_ended: number | null;
  ip: string | null;
}

/**
 * The operator's hold on a partner's cabinet people (issue 26.10): list them, clear a person's
 * two-factor, end their sessions, remove them, and a reset link that also clears two-factor;
 * each recorded. API and CLI.
 */
describe('operator: cabinet people', () => {
  const clock = new ManualClock(new Date('2026-03-08T10:00:00.000Z'));
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ clock, env: { WORKER: 'off', PUBLIC_URL: 'https://cabinet.example' } });
  });
  after(() => t.close());

  const keyOf = (body: string) => /Key: <span class="mono">([A-Z2-7 ]+)<\/span>/.exec(body)?.[1]?.replace(/ /g, '') ?? '';
  const signedIn = async (client: CabinetClient) => (await client.get('/cabinet')).statusCode === 200;
  const people = async (partnerId: string) => {
    const res = await t.admin('GET', `/admin/v1/partners/${partnerId}/people`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<Person[]>();
  };
  const actions = async (partnerId: string) => {
    const res = await t.admin('GET', `/admin/v1/partners/${partnerId}/account-actions`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<Action[]>();
  };
  /** Two-factor on, as a thief with a stolen session and the password would turn it on. */
  async function enrol(client: CabinetClient): Promise<string> {
    await client.get('/cabinet/account');
    const secret = keyOf((await client.submit('/cabinet/account/totp', {})).body);
    assert.equal((await client.post('/cabinet/account/totp/confirm', { code: totpCode(secret, totpStep(clock.now())), password: PASSWORD })).statusCode, 200);
    clock.advance(30_000);
    return secret;
  }
  /** Signs in from a new browser: where the password alone leads. */
  async function signInLeadsTo(email: string, password: string, address: string): Promise<string | undefined> {
    const client = new CabinetClient(t, address);
    await client.get('/cabinet/login');
    const res = await client.post('/cabinet/login', { email, password });
    return res.statusCode === 303 ? String(res.headers.location) : String(res.statusCode);
  }

  it('lists the people; clears a person\'s two-factor and ends their sessions; each recorded', async () => {
    assert.equal((await t.admin('GET', '/admin/v1/partners/00000000-0000-4000-8000-000000000000/people')).statusCode, 404);
    const email = 'locked@people.example';
    const { partnerId, client } = await cabinetPerson(t, { email, password: PASSWORD, address: '198.51.100.240' });
    clock.advance(1_000);
    const colleague = await cabinetPerson(t, { email: 'colleague@people.example', password: PASSWORD, address: '198.51.100.241', partnerId });
    await enrol(client);
    const second = new CabinetClient(t, '198.51.100.242');
    await second.get('/cabinet/login');
    await second.post('/cabinet/login', { email, password: PASSWORD });

    const listed = await people(partnerId);
    assert.deepEqual(listed.map((person) => [person.email, person.two_factor]), [[email, true], ['colleague@people.example', false]]);
    const person = listed[0]!;
    assert.equal(person.sessions, 2, 'the enrolling browser and one waiting for its code');
    assert.deepEqual(Object.keys(person).sort(), ['created_at', 'email', 'id', 'sessions', 'two_factor']);

    // Another partner's person, or nobody: 404, nothing done.
    const stranger = await cabinetPerson(t, { email: 'stranger@people.example', password: PASSWORD, address: '198.51.100.243' });
    assert.equal((await t.admin('POST', `/admin/v1/partners/${stranger.partnerId}/people/${person.id}/clear-2fa`)).statusCode, 404);
    assert.equal((await t.admin('POST', `/admin/v1/partners/${partnerId}/people/00000000-0000-4000-8000-000000000000/end-sessions`)).statusCode, 404);
    assert.equal((await t.admin('POST', `/admin/v1/partners/${partnerId}/people/not-a-uuid/clear-2fa`)).statusCode, 400);
    assert.deepEqual(await actions(stranger.partnerId), []);

    // Actions are listed newest first: each a second apart here (the clock is the test's).
    clock.advance(1_000);
    const cleared = await t.admin('POST', `/admin/v1/partners/${partnerId}/people/${person.id}/clear-2fa`);
    assert.equal(cleared.statusCode, 200, cleared.body);
    assert.equal(cleared.json<Person>().two_factor, false);
    assert.equal(await signInLeadsTo(email, PASSWORD, '198.51.100.244'), '/cabinet', 'no code asked any more');

    clock.advance(1_000);
    const ended = await t.admin('POST', `/admin/v1/partners/${partnerId}/people/${person.id}/end-sessions`);
    assert.equal(ended.statusCode, 200, ended.body);
    assert.equal(ended.json<Person>().sessions, 0);
    assert.equal(await signedIn(client), false);
    assert.equal(await signedIn(colleague.client), true, "a colleague's session is not touched");

    const recorded = await actions(partnerId);
    assert.deepEqual(
      recorded.map((row) => [row.action, row.actor, row.email, row.clear_2fa, row.sessions_ended]),
      [
        ['end_sessions', 'operator', email, false, 3],
        ['clear_2fa', 'operator', email, true, null],
      ],
    );
    assert.ok(recorded.every((row) => row.person_id === person.id && typeof row.ip === 'string'));
  });

  it('removes a person: signed out, the account gone, recorded; the email may be invited again', async () => {
    const email = 'removed@people.example';
    const { partnerId, client } = await cabinetPerson(t, { email, password: PASSWORD, address: '198.51.100.250' });
    const [person] = await people(partnerId);
    assert.ok(person !== undefined);
    const removed = await t.admin('DELETE', `/admin/v1/partners/${partnerId}/people/${person.id}`);
    assert.equal(removed.statusCode, 204, removed.body);
    assert.equal(await signedIn(client), false);
    assert.equal(await signInLeadsTo(email, PASSWORD, '198.51.100.251'), '401');
    assert.deepEqual(await people(partnerId), []);
    assert.equal((await t.admin('DELETE', `/admin/v1/partners/${partnerId}/people/${person.id}`)).statusCode, 404);
    const recorded = await actions(partnerId);
    assert.deepEqual(recorded.map((row) => [row.action, row.person_id, row.email, row.sessions_ended]), [['remove_person', person.id, email, 1]]);
    assert.equal((await t.admin('POST', `/admin/v1/partners/${partnerId}/invitations`, { email })).statusCode, 201);
  });

  it("a reset link with clear_2fa clears two-factor when used: a thief's authenticator goes with the thief's sessions", async () => {
    const email = 'taken@people.example';
    const { partnerId, client: thief } = await cabinetPerson(t, { email, password: PASSWORD, address: '203.0.113.250' });
    await enrol(thief);
    const issued = await t.admin('POST', `/admin/v1/partners/${partnerId}/password-resets`, { email, clear_2fa: true });
    assert.equal(issued.statusCode, 201, issued.body);
    const link = new URL(issued.json<{ url: string }>().url).pathname;
    assert.equal((await people(partnerId))[0]?.two_factor, true, 'nothing changes before the link is used');

    clock.advance(1_000);
    const owner = new CabinetClient(t, '198.51.100.252');
    await owner.get(link);
    const set = await owner.post(link, { password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    assert.equal(set.statusCode, 303, set.body);
    assert.equal(await signedIn(thief), false);
    assert.equal((await people(partnerId))[0]?.two_factor, false);
    assert.equal(await signInLeadsTo(email, NEW_PASSWORD, '198.51.100.253'), '/cabinet', 'the thief\'s authenticator is not asked for');

    // Without clear_2fa a reset keeps two-factor (the owner's own authenticator), as before.
    const owned = await cabinetPerson(t, { email: 'kept@people.example', password: PASSWORD, address: '198.51.100.254' });
    await enrol(owned.client);
    const plain = new URL((await t.admin('POST', `/admin/v1/partners/${owned.partnerId}/password-resets`, { email: 'kept@people.example' })).json<{ url: string }>().url).pathname;
    const browser = new CabinetClient(t, '198.51.100.255');
    clock.advance(1_000);
    await browser.get(plain);
    assert.equal((await browser.post(plain, { password: NEW_PASSWORD, confirm: NEW_PASSWORD })).statusCode, 303);
    assert.equal(await signInLeadsTo('kept@people.example', NEW_PASSWORD, '198.51.100.9'), '/cabinet/login/code');

    const recorded = await actions(partnerId);
    assert.deepEqual(
      recorded.map((row) => [row.action, row.actor, row.clear_2fa]),
      [
        ['password_reset_used', 'person', true],
        ['password_reset_issued', 'operator', true],
      ],
    );
    assert.equal(recorded[0]?.ip, '198.51.100.252');
    assert.deepEqual((await actions(owned.partnerId)).map((row) => [row.action, row.clear_2fa]), [['password_reset_used', false], ['password_reset_issued', false]]);
  });

  it('npm run admin -- people list / clear-2fa / end-sessions / remove / actions, and partners password-reset --clear-2fa', async () => {
    const origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const dataDir = mkdtempSync(path.join(tmpdir(), 'epa-cabinet-people-cli-'));
    try {
      const email = 'cli@people.example';
      const { partnerId, client } = await cabinetPerson(t, { email, password: PASSWORD, address: '198.51.100.8' });
      await enrol(client);
      const env = { DATA_DIR: dataDir, ADMIN_API_URL: origin, ADMIN_TOKEN: t.adminToken };
      const list = await runAdminCli(['people', 'list', partnerId], env);
      assert.equal(list.code, 0, list.stderr);
      const personId = (await people(partnerId))[0]?.id ?? '';
      assert.match(list.stdout, new RegExp(`${personId}\\s+cli@people\\.example\\s+on\\s+1`));

      const reset = await runAdminCli(['partners', 'password-reset', partnerId, '--email', email, '--clear-2fa', '--json'], env);
      assert.equal(reset.code, 0, reset.stderr);
      assert.match((JSON.parse(reset.stdout) as { url: string }).url, /^https:\/\/cabinet\.example\/cabinet\/password-reset\//);

      clock.advance(1_000);
      const clear = await runAdminCli(['people', 'clear-2fa', partnerId, personId], env);
      assert.equal(clear.code, 0, clear.stderr);
      assert.match(clear.stdout, /two-factor cleared.*\n.*two-factor off/);
      clock.advance(1_000);
      const end = await runAdminCli(['people', 'end-sessions', partnerId, personId, '--json'], env);
      assert.equal(end.code, 0, end.stderr);
      assert.equal((JSON.parse(end.stdout) as Person).sessions, 0);
      assert.equal(await signedIn(client), false);
      clock.advance(1_000);
      const remove = await runAdminCli(['people', 'remove', partnerId, personId], env);
      assert.equal(remove.code, 0, remove.stderr);
      assert.deepEqual(await people(partnerId), []);
      const missing = await runAdminCli(['people', 'remove', partnerId, personId], env);
      assert.notEqual(missing.code, 0);
      assert.match(missing.stderr, /no cabinet person with this id/);

      const recorded = await runAdminCli(['people', 'actions', partnerId], env);
      assert.equal(recorded.code, 0, recorded.stderr);
      const lines = recorded.stdout.trim().split('\n').slice(1).map((line) => line.split(/\s+/)[1]);
      assert.deepEqual(lines, ['remove_person', 'end_sessions', 'clear_2fa', 'password_reset_issued']);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
