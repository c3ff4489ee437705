import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { totpCode, totpStep } from '../../src/domain/totp.js';
import { PASSWORD_RESET_TTL_MS } from '../../src/services/cabinet-password-changes.js';
import { runAdminCli } from '../helpers/admin-cli.js';
import { CabinetClient, cabinetPerson } from '../helpers/cabinet-client.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';

const PASSWORD = 'copper lagoon thistle harbor';
const NEW_PASSWORD = 'saffron glacier pocket violin';

/**
 * The account page's sessions (ASVS 3.3.4), the password change and the operator's password
 * reset link (API, CLI and its page), through the real HTTP stack.
 */
describe('cabinet sessions and passwords', () => {
  const clock = new ManualClock(new Date('2026-03-05T08:00:00.000Z'));
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ clock, env: { WORKER: 'off', PUBLIC_URL: 'https://cabinet.example' } });
  });
  after(() => t.close());

  /** Another browser of the same person, signed in with its own User-Agent. */
  async function browser(email: string, address: string, userAgent: string, password = PASSWORD): Promise<CabinetClient> {
    const client = new CabinetClient(t, address);
    await client.get('/cabinet/login');
    const res = await client.post('/cabinet/login', { email, password }, { headers: { 'user-agent': userAgent } });
    assert.equal(res.statusCode, 303, res.body);
    return client;
  }

  /** The session ids the account page offers to sign out, in page order. */
  const revocable = (body: string) => [...body.matchAll(/action="\/cabinet\/account\/sessions\/([0-9a-f-]{36})\/revoke"/g)].map((match) => match[1]!);
  const signedIn = async (client: CabinetClient) => (await client.get('/cabinet')).statusCode === 200;

  it('the account page lists the live sessions (created, last seen, browser), this one marked; another is signed out by id', async () => {
    const email = 'many@sessions.example';
    const { client: first } = await cabinetPerson(t, { email, password: PASSWORD, address: '198.51.100.110' });
    clock.advance(5 * 60_000);
    const phone = await browser(email, '198.51.100.111', 'Phone <Browser> 1.0');
    const laptop = await browser(email, '198.51.100.112', 'Laptop Browser 2.0');

    const page = await laptop.get('/cabinet/account');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<h2>Your sessions<\/h2>/);
    assert.match(page.body, /Phone &lt;Browser&gt; 1\.0/, 'the user agent, escaped');
    assert.match(page.body, /<tr class="current">.*Laptop Browser 2\.0.*<strong>This session<\/strong>/);
    assert.match(page.body, /<time datetime="2026-03-05T08:00:00.000Z">/, 'the first session began earlier');
    const ids = revocable(page.body);
    assert.equal(ids.length, 2, 'the two other sessions, not this one');
    assert.match(page.body, /Sign out all other sessions/);

    // The phone's session is the newest of the other two (newest first).
    const [phoneId] = ids;
    const ended = await laptop.post(`/cabinet/account/sessions/${phoneId}/revoke`, {});
    assert.equal(ended.statusCode, 303);
    assert.equal(ended.headers.location, '/cabinet/account?done=session-ended');
    assert.match((await laptop.get('/cabinet/account?done=session-ended')).body, /That session is signed out/);
    assert.equal(await signedIn(phone), false, "the revoked session's cookie no longer works");
    assert.equal(await signedIn(first), true);
    assert.equal(await signedIn(laptop), true);

    // Again, or the asking session itself, or no uuid: the account page says there is none, nothing ends.
    const noSuch = /role="alert">No such session of yours/;
    await laptop.get('/cabinet/account');
    assert.match((await laptop.submit(`/cabinet/account/sessions/${phoneId}/revoke`, {})).body, noSuch);
    // The page offers no form for the asking session; its id, read from the table, is refused too.
    const own = await t.db.handle.db.selectFrom('cabinet_sessions').select('id').where('user_agent', '=', 'Laptop Browser 2.0').executeTakeFirstOrThrow();
    assert.match((await laptop.submit(`/cabinet/account/sessions/${own.id}/revoke`, {})).body, noSuch);
    assert.match((await laptop.submit('/cabinet/account/sessions/not-a-uuid/revoke', {})).body, noSuch);
    assert.equal(await signedIn(laptop), true);
    assert.equal(await signedIn(first), true);
  });

  it("another person's session (same partner or not) cannot be signed out; CSRF is refused on both forms", async () => {
    const owner = await cabinetPerson(t, { email: 'owner@revoke.example', password: PASSWORD, address: '198.51.100.120' });
    const ownerPhone = await browser('owner@revoke.example', '198.51.100.121', 'Owner phone');
    const colleague = (await cabinetPerson(t, { email: 'colleague@revoke.example', password: PASSWORD, address: '198.51.100.122', partnerId: owner.partnerId })).client;
    const stranger = (await cabinetPerson(t, { email: 'stranger@revoke.example', password: PASSWORD, address: '198.51.100.123' })).client;
    const phoneId = revocable((await owner.client.get('/cabinet/account')).body)[0]!;

    for (const other of [colleague, stranger]) {
      await other.get('/cabinet/account');
      assert.match((await other.submit(`/cabinet/account/sessions/${phoneId}/revoke`, {})).body, /role="alert">No such session of yours/);
    }
    assert.equal(await signedIn(ownerPhone), true);

    // The owner's own forms without the session's token, with another session's, or from another site.
    for (const url of [`/cabinet/account/sessions/${phoneId}/revoke`, '/cabinet/account/sessions/revoke-others']) {
      await owner.client.get('/cabinet/account');
      assert.equal((await owner.client.post(url, {}, { csrf: null })).statusCode, 403, `${url} without a token`);
      assert.equal((await owner.client.post(url, {}, { csrf: colleague.csrf ?? 'x' })).statusCode, 403, `${url} with another session's token`);
      await owner.client.get('/cabinet/account');
      assert.equal((await owner.client.post(url, {}, { headers: { 'sec-fetch-site': 'cross-site' } })).statusCode, 403, `${url} from another site`);
      assert.equal(await signedIn(ownerPhone), true, `${url} refused: nothing ended`);
    }
  });

  it('"sign out all other sessions" ends every other session of the person, and only those', async () => {
    const email = 'all@others.example';
    const { client: keeper, partnerId } = await cabinetPerson(t, { email, password: PASSWORD, address: '198.51.100.130' });
    const others = [await browser(email, '198.51.100.131', 'A'), await browser(email, '198.51.100.132', 'B')];
    const colleague = (await cabinetPerson(t, { email: 'colleague@others.example', password: PASSWORD, address: '198.51.100.133', partnerId })).client;
    await keeper.get('/cabinet/account');
    const res = await keeper.post('/cabinet/account/sessions/revoke-others', {});
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/cabinet/account?done=others-ended');
    for (const other of others) assert.equal(await signedIn(other), false);
    assert.equal(await signedIn(keeper), true);
    assert.equal(await signedIn(colleague), true, "a colleague's session is not the person's");
    assert.match((await keeper.get('/cabinet/account')).body, /No other session is signed in/);
  });

  it('password change: the current password, strength and confirmation are checked; other sessions end; CSRF refused', async () => {
    const email = 'change@password.example';
    const { client } = await cabinetPerson(t, { email, password: PASSWORD, address: '198.51.100.140' });
    const other = await browser(email, '198.51.100.141', 'Other');
    const change = (fields: Record<string, string>, options = {}) => client.get('/cabinet/account').then(() => client.post('/cabinet/account/password', fields, options));
    // A refusal answers 303 to the account page, which says it beside the password form.
    const refused = (fields: Record<string, string>) => client.get('/cabinet/account').then(() => client.submit('/cabinet/account/password', fields));

    const wrong = await refused({ current: 'not my password at all', password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    assert.match(wrong.body, /role="alert">Your current password is not right/);
    const weak = await refused({ current: PASSWORD, password: 'password1234', confirm: 'password1234' });
    assert.match(weak.body, /too easy to guess/);
    assert.match((await refused({ current: PASSWORD, password: 'short', confirm: 'short' })).body, /at least 12 characters/);
    assert.match((await refused({ current: PASSWORD, password: NEW_PASSWORD, confirm: `${NEW_PASSWORD}!` })).body, /differ/);
    assert.equal((await change({ current: PASSWORD, password: NEW_PASSWORD, confirm: NEW_PASSWORD }, { csrf: null })).statusCode, 403);
    assert.equal(await signedIn(other), true, 'nothing changed yet');

    const done = await change({ current: PASSWORD, password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    assert.equal(done.statusCode, 303, done.body);
    assert.equal(done.headers.location, '/cabinet/account?done=password-changed');
    assert.equal(await signedIn(client), true, 'this session stays');
    assert.equal(await signedIn(other), false, 'every other session ended');
    const old = new CabinetClient(t, '198.51.100.142');
    await old.get('/cabinet/login');
    assert.equal((await old.post('/cabinet/login', { email, password: PASSWORD })).statusCode, 401);
    await old.signIn(email, NEW_PASSWORD);
  });

  it('wrong current passwords are throttled like sign-in failures', async () => {
    const email = 'guess@password.example';
    const { client } = await cabinetPerson(t, { email, password: PASSWORD, address: '198.51.100.150' });
    for (let i = 0; i < 6; i++) {
      await client.get('/cabinet/account');
      await client.submit('/cabinet/account/password', { current: `guess number ${i}`, password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    }
    assert.match(client.lastBody, /role="alert">Too many wrong passwords/);
    clock.advance(61_000);
  });

  it('password reset: the operator issues a one-use, one-hour link; it sets a strong password, signs out every session, keeps TOTP', async () => {
    const email = 'reset@totp.example';
    const { client, partnerId } = await cabinetPerson(t, { email, password: PASSWORD, address: '198.51.100.160' });
    // Two-factor on, as the account page enrols it.
    await client.get('/cabinet/account');
    const enrol = await client.submit('/cabinet/account/totp', {});
    const secret = /Key: <span class="mono">([A-Z2-7 ]+)<\/span>/.exec(enrol.body)?.[1]?.replace(/ /g, '') ?? '';
    assert.equal((await client.post('/cabinet/account/totp/confirm', { code: totpCode(secret, totpStep(clock.now())), password: PASSWORD })).statusCode, 200);

    // The API: unknown partner, another partner's person, no such person, a bad email.
    const stranger = await cabinetPerson(t, { email: 'stranger@reset.example', password: PASSWORD, address: '198.51.100.161' });
    assert.equal((await t.admin('POST', '/admin/v1/partners/00000000-0000-4000-8000-000000000000/password-resets', { email })).statusCode, 404);
    const foreign = await t.admin('POST', `/admin/v1/partners/${stranger.partnerId}/password-resets`, { email });
    assert.equal(foreign.statusCode, 404, foreign.body);
    assert.equal(typeof foreign.json<{ detail: unknown }>().detail, 'string');
    assert.equal((await t.admin('POST', `/admin/v1/partners/${partnerId}/password-resets`, { email: 'nobody@reset.example' })).statusCode, 404);
    assert.equal((await t.admin('POST', `/admin/v1/partners/${partnerId}/password-resets`, { email: 'not an email' })).statusCode, 400);

    const first = await t.admin('POST', `/admin/v1/partners/${partnerId}/password-resets`, { email: 'RESET@totp.example' });
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(first.headers['cache-control'], 'no-store');
    const firstUrl = first.json<{ url: string }>().url;
    const issued = await t.admin('POST', `/admin/v1/partners/${partnerId}/password-resets`, { email });
    const { url, expires_at } = issued.json<{ url: string; expires_at: string }>();
    assert.match(url, /^https:\/\/cabinet\.example\/cabinet\/password-reset\/[A-Za-z0-9_-]{43}$/);
    assert.equal(expires_at, new Date(clock.now().getTime() + PASSWORD_RESET_TTL_MS).toISOString());
    const browserClient = new CabinetClient(t, '198.51.100.162');
    const voided = await browserClient.get(new URL(firstUrl).pathname);
    assert.equal(voided.statusCode, 404, 'a newer link voids the earlier one');
    assert.match(voided.body, /replaced by a newer one/);

    // The page: CSRF, strength, confirmation.
    const resetPath = new URL(url).pathname;
    const form = await browserClient.get(resetPath);
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /reset@totp\.example/);
    assert.equal((await browserClient.post(resetPath, { password: NEW_PASSWORD, confirm: NEW_PASSWORD }, { csrf: null })).statusCode, 403);
    assert.equal((await new CabinetClient(t, '198.51.100.163').post(resetPath, { password: NEW_PASSWORD, confirm: NEW_PASSWORD })).statusCode, 403, 'no pre-session cookie');
    await browserClient.get(resetPath);
    const weak = await browserClient.post(resetPath, { password: 'password1234', confirm: 'password1234' });
    assert.equal(weak.statusCode, 400);
    assert.match(weak.body, /too easy to guess/);
    assert.match((await browserClient.post(resetPath, { password: NEW_PASSWORD, confirm: `${NEW_PASSWORD}?` })).body, /differ/);
    assert.equal(await signedIn(client), true, 'nothing changed yet');

    const set = await browserClient.post(resetPath, { password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    assert.equal(set.statusCode, 303, set.body);
    assert.equal(set.headers.location, '/cabinet/login?done=password-reset');
    assert.equal(await signedIn(client), false, 'every session of the person ended');
    assert.equal(await signedIn(stranger.client), true, "another person's session did not");
    // Used: the link is gone.
    assert.equal((await browserClient.get(resetPath)).statusCode, 404);
    assert.equal((await browserClient.post(resetPath, { password: NEW_PASSWORD, confirm: NEW_PASSWORD })).statusCode, 404);
    // The new password signs in, and the second factor is still asked.
    const next = new CabinetClient(t, '198.51.100.164');
    await next.get('/cabinet/login');
    assert.equal((await next.post('/cabinet/login', { email, password: PASSWORD })).statusCode, 401);
    const signIn = await next.post('/cabinet/login', { email, password: NEW_PASSWORD });
    assert.equal(signIn.statusCode, 303);
    assert.equal(signIn.headers.location, '/cabinet/login/code', 'TOTP enrolment kept');
    // The link is a credential until used: no log line holds its token.
    for (const link of [url, firstUrl]) {
      const token = link.slice(link.lastIndexOf('/') + 1);
      assert.deepEqual(t.logs.filter((line) => line.includes(token)), []);
    }
  });

  it('a reset link expires after one hour', async () => {
    const email = 'late@reset.example';
    const { partnerId } = await cabinetPerson(t, { email, password: PASSWORD, address: '198.51.100.170' });
    const { url } = (await t.admin('POST', `/admin/v1/partners/${partnerId}/password-resets`, { email })).json<{ url: string }>();
    const client = new CabinetClient(t, '198.51.100.171');
    assert.equal((await client.get(new URL(url).pathname)).statusCode, 200);
    clock.advance(PASSWORD_RESET_TTL_MS);
    const late = await client.post(new URL(url).pathname, { password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    assert.equal(late.statusCode, 404);
    assert.match(late.body, /expired/);
  });

  it('npm run admin -- partners reset-password <id> --email prints the link', async () => {
    const origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const dataDir = mkdtempSync(path.join(tmpdir(), 'epa-cabinet-reset-cli-'));
    try {
      const email = 'cli@reset.example';
      const { partnerId } = await cabinetPerson(t, { email, password: PASSWORD, address: '198.51.100.180' });
      const env = { DATA_DIR: dataDir, ADMIN_API_URL: origin, ADMIN_TOKEN: t.adminToken };
      const json = await runAdminCli(['partners', 'reset-password', partnerId, '--email', email, '--json'], env);
      assert.equal(json.code, 0, json.stderr);
      assert.match((JSON.parse(json.stdout) as { url: string }).url, /^https:\/\/cabinet\.example\/cabinet\/password-reset\/[A-Za-z0-9_-]{43}$/);
      const text = await runAdminCli(['partners', 'reset-password', partnerId, '--email', email], env);
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /one use, until .*\nhttps:\/\/cabinet\.example\/cabinet\/password-reset\//);
      const nobody = await runAdminCli(['partners', 'reset-password', partnerId, '--email', 'nobody@reset.example'], env);
      assert.notEqual(nobody.code, 0);
      assert.match(nobody.stderr, /no cabinet account with this email/);
      const missing = await runAdminCli(['partners', 'reset-password', partnerId], env);
      assert.notEqual(missing.code, 0);
      assert.match(missing.stderr, /needs --email/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
