import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { totpCode, totpStep } from '../../src/domain/totp.js';
import { WEBAUTHN_CHALLENGE_TTL_MS } from '../../src/services/operator-security-keys.js';
import { CabinetClient } from '../helpers/cabinet-client.js';
import { htmlProblems } from '../helpers/html-check.js';
import { pageCeremonyOptions, SoftSecurityKey } from '../helpers/soft-security-key.js';
import { buildTestApp } from '../helpers/test-app.js';
import { startHarness, type Harness } from '../lifecycle/lifecycle-helpers.js';
import { CONSOLE_PASSWORD, consolePerson } from './console-helpers.js';

/** WebAuthn needs a secure context: http://localhost is one (the browser test uses it too). */
const ORIGIN = 'http://localhost:8443';

type AuditEntry = { actor: string; action: string; target: string | null; status: number; before: unknown; after: unknown };

/**
 * Operator security keys over the real HTTP stack, answered by a key in software
 * (test/helpers/soft-security-key.ts): registration on the account page, sign-in with a key
 * instead of the code, and what must be refused: a challenge used twice or past its 5 minutes,
 * another person's key, a counter that went back, a form without the session's CSRF token,
 * failures past the sign-in throttle. Adding and removing are in the operator audit log.
 */
describe('operator security keys', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ PUBLIC_URL: ORIGIN });
  });
  after(() => h.t.close());

  const audit = async (actor: string): Promise<AuditEntry[]> =>
    (await h.t.admin('GET', `/admin/v1/audit?actor=${encodeURIComponent(actor)}&limit=50`)).json<{ entries: AuditEntry[] }>().entries;

  /** Adds `key` on the account page of the signed-in `client` under `name`; answers the page after. */
  async function addKey(client: CabinetClient, key: SoftSecurityKey, name: string): Promise<string> {
    const account = await client.get('/console/account');
    const page = await client.submit('/console/account/security-keys', { name, credential: key.register(pageCeremonyOptions(account.body, 'register')) });
    assert.match(page.body, /The security key is added/, page.body);
    return page.body;
  }

  /** A new browser of `email` past the password, on the code page (the client holds the pending session). */
  async function atSecondStep(email: string, address: string): Promise<{ client: CabinetClient; body: string }> {
    const client = new CabinetClient(h.t, address);
    await client.get('/console/login');
    const signIn = await client.post('/console/login', { email, password: CONSOLE_PASSWORD });
    assert.equal(signIn.headers.location, '/console/login/code', signIn.body);
    const page = await client.get('/console/login/code');
    assert.equal(page.statusCode, 200);
    return { client, body: page.body };
  }

  it('a person adds a key on the account page and signs in with it instead of a code; its last use is shown', async () => {
    const { client } = await consolePerson(h.t, h.clock, { email: 'keyed@ops.example', role: 'viewer', address: '198.51.100.120' });
    const before = await client.get('/console/account');
    assert.deepEqual(htmlProblems(before.body), []);
    assert.match(before.body, /You have no security key/);
    assert.match(before.body, /<script src="\/console\/assets\/security-keys\.js" defer><\/script>/);
    const options = pageCeremonyOptions(before.body, 'register');
    assert.equal((options as unknown as { rp: { id: string } }).rp.id, 'localhost', 'the RP ID is the host of PUBLIC_URL');
    const key = new SoftSecurityKey(ORIGIN);
    const added = await addKey(client, key, 'Desk key');
    assert.deepEqual(htmlProblems(added), []);
    assert.match(added, /<td>Desk key<\/td><td><time[^>]*>[^<]+<\/time><\/td><td data-key-last-used>—<\/td>/);
    const entries = await audit('person:keyed@ops.example');
    const addEntry = entries.find((entry) => entry.action === 'POST /console/account/security-keys');
    assert.ok(addEntry !== undefined, JSON.stringify(entries));
    assert.equal(addEntry.status, 303);
    assert.deepEqual(addEntry.after, { asked: { name: 'Desk key' } }, 'the name is logged; the ceremony answer is not');

    h.clock.advance(60_000);
    const { client: later, body } = await atSecondStep('keyed@ops.example', '198.51.100.121');
    assert.deepEqual(htmlProblems(body), []);
    assert.match(body, /Use my security key/);
    assert.match(body, /Code from your authenticator app/, 'the code stays available');
    const allowed = (pageCeremonyOptions(body, 'authenticate') as unknown as { allowCredentials: { id: string }[] }).allowCredentials.map((credential) => credential.id);
    assert.deepEqual(allowed, [key.id]);
    const opened = await later.post('/console/login/security-key', { credential: key.assert(pageCeremonyOptions(body, 'authenticate')) });
    assert.equal(opened.statusCode, 303, opened.body);
    assert.equal(opened.headers.location, '/console');
    const account = await later.get('/console/account');
    assert.equal(account.statusCode, 200);
    assert.match(account.body, /<td data-key-last-used><time datetime="[^"]+">/);
  });

  it('a challenge is used once: an answer over one already answered, even unsuccessfully, is refused', async () => {
    const { client } = await consolePerson(h.t, h.clock, { email: 'replay@ops.example', role: 'viewer', address: '198.51.100.122' });
    const key = new SoftSecurityKey(ORIGIN);
    await addKey(client, key, 'Replayed key');

    const first = await atSecondStep('replay@ops.example', '198.51.100.123');
    const answer = key.assert(pageCeremonyOptions(first.body, 'authenticate'));
    assert.equal((await first.client.post('/console/login/security-key', { credential: answer })).statusCode, 303);
    // The same assertion on another pending session: its challenge is not this one, and the first is gone.
    const second = await atSecondStep('replay@ops.example', '198.51.100.124');
    const replayed = await second.client.post('/console/login/security-key', { credential: answer });
    assert.equal(replayed.statusCode, 401);
    assert.match(replayed.body, /That security key could not sign you in/);
    assert.equal((await second.client.get('/console')).headers.location, '/console/login/code', 'still pending');

    // A failed answer uses the challenge up: a right one over it afterwards is refused too.
    const third = await atSecondStep('replay@ops.example', '198.51.100.125');
    const options = pageCeremonyOptions(third.body, 'authenticate');
    assert.equal((await third.client.post('/console/login/security-key', { credential: key.assert(options, { origin: 'http://localhost:9999' }) })).statusCode, 401, 'another origin');
    assert.equal((await third.client.post('/console/login/security-key', { credential: key.assert(options) })).statusCode, 401, 'its challenge was used');
  });

  it('a challenge past its 5 minutes is refused; the page then made a new one, which works', async () => {
    const { client } = await consolePerson(h.t, h.clock, { email: 'slow@ops.example', role: 'viewer', address: '198.51.100.126' });
    const key = new SoftSecurityKey(ORIGIN);
    await addKey(client, key, 'Slow key');
    const pending = await atSecondStep('slow@ops.example', '198.51.100.127');
    h.clock.advance(WEBAUTHN_CHALLENGE_TTL_MS + 1_000);
    const late = await pending.client.post('/console/login/security-key', { credential: key.assert(pageCeremonyOptions(pending.body, 'authenticate')) });
    assert.equal(late.statusCode, 401);
    const fresh = await pending.client.post('/console/login/security-key', { credential: key.assert(pageCeremonyOptions(late.body, 'authenticate')) });
    assert.equal(fresh.statusCode, 303, fresh.body);

    // A registration challenge expires alike.
    h.clock.advance(30_000);
    const account = await client.get('/console/account');
    h.clock.advance(WEBAUTHN_CHALLENGE_TTL_MS + 1_000);
    const expired = await client.submit('/console/account/security-keys', { name: 'Too late', credential: new SoftSecurityKey(ORIGIN).register(pageCeremonyOptions(account.body, 'register')) });
    assert.match(expired.body, /role="alert">The security key request expired or was used already/);
    assert.doesNotMatch(expired.body, /Too late/);
  });

  it('an assertion of another person’s key is refused, and so is a counter that went back', async () => {
    const alice = await consolePerson(h.t, h.clock, { email: 'alice@ops.example', role: 'viewer', address: '198.51.100.128' });
    const bob = await consolePerson(h.t, h.clock, { email: 'bob@ops.example', role: 'viewer', address: '198.51.100.129' });
    const aliceKey = new SoftSecurityKey(ORIGIN);
    const bobKey = new SoftSecurityKey(ORIGIN);
    await addKey(alice.client, aliceKey, 'Alice key');
    await addKey(bob.client, bobKey, 'Bob key');
    const pending = await atSecondStep('bob@ops.example', '198.51.100.130');
    const foreign = await pending.client.post('/console/login/security-key', { credential: aliceKey.assert(pageCeremonyOptions(pending.body, 'authenticate')) });
    assert.equal(foreign.statusCode, 401);
    // The refusal's page made a new challenge; Bob's own key over it opens the session.
    assert.equal((await pending.client.post('/console/login/security-key', { credential: bobKey.assert(pageCeremonyOptions(foreign.body, 'authenticate')) })).statusCode, 303);

    // Bob's key reported 1; a clone that starts again from 0 reports 1 too: not above the stored counter.
    h.clock.advance(30_000);
    const again = await atSecondStep('bob@ops.example', '198.51.100.131');
    bobKey.signCount = 0;
    const cloned = await again.client.post('/console/login/security-key', { credential: bobKey.assert(pageCeremonyOptions(again.body, 'authenticate')) });
    assert.equal(cloned.statusCode, 401);
    bobKey.signCount = 5;
    assert.equal((await again.client.post('/console/login/security-key', { credential: bobKey.assert(pageCeremonyOptions(cloned.body, 'authenticate')) })).statusCode, 303, 'a counter past the stored one');
  });

  it('adding and removing need the session’s CSRF token; removing is in the audit log with the key it removed', async () => {
    const { client } = await consolePerson(h.t, h.clock, { email: 'remover@ops.example', role: 'viewer', address: '198.51.100.132' });
    const key = new SoftSecurityKey(ORIGIN);
    const account = await client.get('/console/account');
    const forgedAdd = await client.post('/console/account/security-keys', { name: 'Forged', credential: key.register(pageCeremonyOptions(account.body, 'register')) }, { csrf: 'forged' });
    assert.equal(forgedAdd.statusCode, 403);
    assert.equal((await client.post('/console/account/security-keys', { name: 'No token', credential: key.register(pageCeremonyOptions(account.body, 'register')) }, { csrf: null })).statusCode, 403);
    assert.doesNotMatch((await client.get('/console/account')).body, /Forged|No token/);

    const page = await addKey(client, key, 'Pocket key');
    const id = /action="\/console\/account\/security-keys\/([0-9a-f-]{36})\/remove"/.exec(page)?.[1] ?? '';
    assert.notEqual(id, '');
    assert.equal((await client.post(`/console/account/security-keys/${id}/remove`, {}, { csrf: 'forged' })).statusCode, 403);
    assert.match((await client.get('/console/account')).body, /Pocket key/, 'still there');
    const removed = await client.submit(`/console/account/security-keys/${id}/remove`, {});
    assert.match(removed.body, /The security key is removed/);
    assert.match(removed.body, /You have no security key/);
    const entry = (await audit('person:remover@ops.example')).find((row) => row.action === 'POST /console/account/security-keys/:id/remove');
    assert.ok(entry !== undefined);
    assert.equal(entry.target, `account/security-keys/${id}`);
    assert.equal(entry.status, 303);
    assert.equal((entry.before as { name: string }).name, 'Pocket key');
    // Someone else's key id, or none: refused in words.
    const again = await client.submit(`/console/account/security-keys/${id}/remove`, {});
    assert.match(again.body, /There is no such security key of yours/);

    // Without a key, the code page offers none: the code (or its enrolment) is the way in.
    const pending = await atSecondStep('remover@ops.example', '198.51.100.133');
    assert.doesNotMatch(pending.body, /data-webauthn/);
    assert.equal((await pending.client.post('/console/login/security-key', { credential: key.assert({ challenge: 'AAAA' }) })).statusCode, 401);
  });

  it('failed key answers count against the sign-in throttle as wrong codes do; clearing two-factor removes the keys', async () => {
    const { client, secret, id } = await consolePerson(h.t, h.clock, { email: 'throttled@ops.example', role: 'viewer', address: '198.51.100.134' });
    const key = new SoftSecurityKey(ORIGIN);
    await addKey(client, key, 'Throttled key');
    const pending = await atSecondStep('throttled@ops.example', '198.51.100.135');
    for (let i = 0; i < 5; i++) {
      assert.equal((await pending.client.post('/console/login/security-key', { credential: '{"id":"nothing"}' })).statusCode, 401, `failure ${i + 1}`);
    }
    const locked = await pending.client.post('/console/login/security-key', { credential: key.assert(pageCeremonyOptions(pending.client.lastBody, 'authenticate')) });
    assert.equal(locked.statusCode, 429);
    assert.match(locked.body, /Too many sign-in attempts/);
    assert.equal((await pending.client.post('/console/login/code', { code: totpCode(secret, totpStep(h.clock.now())) })).statusCode, 429, 'one budget for codes and keys');
    h.clock.advance(61_000);
    // Each page shown made a new challenge: the last one (the refused code's) is the one to answer.
    assert.equal((await pending.client.post('/console/login/security-key', { credential: key.assert(pageCeremonyOptions(pending.client.lastBody, 'authenticate')) })).statusCode, 303);

    const admin = await consolePerson(h.t, h.clock, { email: 'clearer@ops.example', role: 'admin', address: '198.51.100.136' });
    await admin.client.get('/console/people');
    await admin.client.submit(`/console/people/${id}/clear-2fa`, {});
    const after = await atSecondStep('throttled@ops.example', '198.51.100.137');
    assert.match(after.body, /Set up two-factor sign-in/);
    assert.doesNotMatch(after.body, /data-webauthn/, 'no key is left to sign in with');
  });

  it('without PUBLIC_URL keys are off: the account page says why and loads no ceremony script', async () => {
    const t = await buildTestApp({ clock: h.clock, env: { WORKER: 'off' } });
    try {
      const { client } = await consolePerson(t, h.clock, { email: 'nokeys@ops.example', role: 'viewer', address: '198.51.100.138' });
      const page = await client.get('/console/account');
      assert.match(page.body, /Security keys are off on this console: they need PUBLIC_URL/);
      assert.doesNotMatch(page.body, /security-keys\.js|data-webauthn=/);
    } finally {
      await t.close();
    }
  });
});
