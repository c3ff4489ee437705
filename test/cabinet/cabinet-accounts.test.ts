import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { base32nopad } from '@scure/base';
import { totpCode, totpStep } from '../../src/domain/totp.js';
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from '../../src/services/account-audience.js';
import { runAdminCli } from '../helpers/admin-cli.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';
import { CabinetClient, cabinetPerson, invitationPath } from '../helpers/cabinet-client.js';

const PASSWORD = 'velvet orbit canyon lantern';

/**
 * Cabinet accounts (issue 16): the operator's invitation (API and CLI), the password it sets,
 * sign-in and sign-out, session cookies and their timeouts, CSRF, sign-in throttling and TOTP
 * two-factor, through the real HTTP stack.
 */
describe('cabinet accounts', () => {
  const clock = new ManualClock(new Date('2026-03-01T10:00:00.000Z'));
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ clock, env: { WORKER: 'off', PUBLIC_URL: 'https://cabinet.example/' } });
  });
  after(() => t.close());

  it('an invitation is a one-use PUBLIC_URL link for 72 hours; its page sets a strong password', async () => {
    const { id } = await t.createPartner({ name: 'Invited' });
    const res = await t.admin('POST', `/admin/v1/partners/${id}/invitations`, { email: 'Ana@Invited.example' });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.headers['cache-control'], 'no-store');
    const { url, expires_at } = res.json<{ url: string; expires_at: string }>();
    assert.match(url, /^https:\/\/cabinet\.example\/cabinet\/invitation\/[A-Za-z0-9_-]{43}$/);
    assert.equal(expires_at, new Date(clock.now().getTime() + 72 * 3_600_000).toISOString());

    const client = new CabinetClient(t);
    const form = await client.get(invitationPath(url));
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /ana@invited\.example/);
    assert.match(form.body, /<label>New password/);
    const weak = await client.post(invitationPath(url), { password: 'password1234', confirm: 'password1234' });
    assert.equal(weak.statusCode, 400);
    assert.match(weak.body, /too easy to guess/);
    const short = await client.post(invitationPath(url), { password: 'short', confirm: 'short' });
    assert.match(short.body, /at least 12 characters/);
    const differ = await client.post(invitationPath(url), { password: PASSWORD, confirm: `${PASSWORD}!` });
    assert.match(differ.body, /differ/);
    const set = await client.post(invitationPath(url), { password: PASSWORD, confirm: PASSWORD });
    assert.equal(set.statusCode, 303);
    assert.equal(set.headers.location, '/cabinet/login?done=password-set');
    // Kept as argon2id with OWASP's parameters (19 MiB, 2 passes, 1 lane), never in clear.
    const stored = await t.db.handle.db.selectFrom('cabinet_users').select('password_hash').where('email', '=', 'ana@invited.example').executeTakeFirstOrThrow();
    assert.match(stored.password_hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
    assert.ok(!stored.password_hash.includes(PASSWORD));
    // Used: the link shows nothing any more, and setting a password again fails.
    assert.equal((await client.get(invitationPath(url))).statusCode, 404);
    assert.equal((await client.post(invitationPath(url), { password: PASSWORD, confirm: PASSWORD })).statusCode, 404);
    await client.signIn('ANA@invited.example', PASSWORD);
    // The link is a credential until used: no log line holds its token.
    const token = url.slice(url.lastIndexOf('/') + 1);
    assert.deepEqual(t.logs.filter((line) => line.includes(token)), []);
    // The same email cannot be invited twice.
    const again = await t.admin('POST', `/admin/v1/partners/${id}/invitations`, { email: 'ana@invited.example' });
    assert.equal(again.statusCode, 409, again.body);
    assert.equal((await t.admin('POST', '/admin/v1/partners/00000000-0000-4000-8000-000000000000/invitations', { email: 'x@y.example' })).statusCode, 404);
    assert.equal((await t.admin('POST', `/admin/v1/partners/${id}/invitations`, { email: 'not an email' })).statusCode, 400);
  });

  it('an invitation expires after 72 hours', async () => {
    const { id } = await t.createPartner({ name: 'Late' });
    const { url } = (await t.admin('POST', `/admin/v1/partners/${id}/invitations`, { email: 'late@late.example' })).json<{ url: string }>();
    clock.advance(72 * 3_600_000);
    const client = new CabinetClient(t);
    const res = await client.get(invitationPath(url));
    assert.equal(res.statusCode, 404);
    assert.match(res.body, /expired/);
  });

  it('several people per partner; the session cookie is HttpOnly, SameSite=Strict, Secure behind https; sign-out ends it', async () => {
    const { partnerId, client } = await cabinetPerson(t, { email: 'first@team.example', password: PASSWORD, address: '198.51.100.20' });
    const second = await cabinetPerson(t, { email: 'second@team.example', password: PASSWORD, address: '198.51.100.21', partnerId });
    const account = await second.client.get('/cabinet/account');
    assert.match(account.body, /first@team\.example/);
    assert.match(account.body, /second@team\.example/);

    const cookie = [client.cookies.keys()].flatMap((keys) => [...keys]);
    assert.ok(cookie.includes('__Host-cabinet_session'), `cookies: ${cookie.join(', ')}`);
    // The attributes, as the sign-in set them.
    await client.get('/cabinet/login');
    const signIn = await client.post('/cabinet/login', { email: 'first@team.example', password: PASSWORD });
    const setCookie = [signIn.headers['set-cookie'] ?? []].flat().find((line) => line.startsWith('__Host-cabinet_session='));
    // A browser-session cookie (no Max-Age or Expires): the server's timeouts end it as well.
    assert.match(setCookie ?? '', /^__Host-cabinet_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; Secure; SameSite=Strict$/);

    const overview = await client.get('/cabinet');
    assert.equal(overview.statusCode, 200);
    assert.equal(overview.headers['cache-control'], 'no-store');
    assert.match(String(overview.headers['content-security-policy']), /script-src 'self'/);
    const out = await client.post('/cabinet/logout', {});
    assert.equal(out.statusCode, 303);
    const after = await client.get('/cabinet');
    assert.equal(after.statusCode, 303);
    assert.equal(after.headers.location, '/cabinet/login');
  });

  it('a session ends after 30 idle minutes, and 12 hours after sign-in whatever the activity', async () => {
    const { client } = await cabinetPerson(t, { email: 'idle@time.example', password: PASSWORD, address: '198.51.100.30' });
    clock.advance(SESSION_IDLE_MS - 60_000);
    assert.equal((await client.get('/cabinet')).statusCode, 200, 'activity within 30 minutes keeps it');
    clock.advance(SESSION_IDLE_MS - 60_000);
    assert.equal((await client.get('/cabinet')).statusCode, 200);
    clock.advance(SESSION_IDLE_MS);
    const idle = await client.get('/cabinet');
    assert.equal(idle.statusCode, 303, 'idle for 30 minutes: signed out');

    await client.signIn('idle@time.example', PASSWORD);
    for (let spent = 0; spent < SESSION_ABSOLUTE_MS - 20 * 60_000; spent += 20 * 60_000) {
      clock.advance(20 * 60_000);
      assert.equal((await client.get('/cabinet/keys')).statusCode, 200);
    }
    clock.advance(20 * 60_000);
    assert.equal((await client.get('/cabinet/keys')).statusCode, 303, 'past 12 hours: signed out');
  });

  it('a change without the session CSRF token, or from another site, is refused and changes nothing', async () => {
    const { client } = await cabinetPerson(t, { email: 'csrf@forms.example', password: PASSWORD, address: '198.51.100.40' });
    await client.get('/cabinet/settings');
    const missing = await client.post('/cabinet/settings', { markup_bps: '120' }, { csrf: null });
    assert.equal(missing.statusCode, 403);
    assert.match(missing.body, /did not come from this cabinet/);
    const wrong = await client.post('/cabinet/settings', { markup_bps: '120' }, { csrf: 'A'.repeat(43) });
    assert.equal(wrong.statusCode, 403);
    await client.get('/cabinet/settings');
    const crossSite = await client.post('/cabinet/settings', { markup_bps: '120' }, { headers: { 'sec-fetch-site': 'cross-site' } });
    assert.equal(crossSite.statusCode, 403);
    const settings = await client.get('/cabinet/settings');
    assert.match(settings.body, /Now: <strong>0 basis points/);
    const saved = await client.submit('/cabinet/settings', { markup_bps: '120' });
    assert.match(saved.body, /now 120 basis points/);
    // Sign-out is a change too: a forged one (no token, or from another site) signs nobody out.
    assert.equal((await client.post('/cabinet/logout', {}, { csrf: null })).statusCode, 403);
    assert.equal((await client.post('/cabinet/logout', {}, { headers: { 'sec-fetch-site': 'cross-site' } })).statusCode, 403);
    assert.equal((await client.get('/cabinet')).statusCode, 200, 'still signed in');
    // The login form has its own token, bound to a pre-session cookie.
    const stranger = new CabinetClient(t, '198.51.100.41');
    const noForm = await stranger.post('/cabinet/login', { email: 'csrf@forms.example', password: PASSWORD });
    assert.equal(noForm.statusCode, 403);
  });

  it('sign-in failures are throttled per account and per address; the answer never tells which emails exist', async () => {
    await cabinetPerson(t, { email: 'target@throttle.example', password: PASSWORD, address: '198.51.100.50' });
    const unknown = new CabinetClient(t, '198.51.100.51');
    await unknown.get('/cabinet/login');
    const noSuch = await unknown.post('/cabinet/login', { email: 'nobody@throttle.example', password: PASSWORD });
    const wrong = await unknown.post('/cabinet/login', { email: 'target@throttle.example', password: 'wrong password here' });
    assert.equal(noSuch.statusCode, 401);
    assert.equal(wrong.statusCode, 401);
    assert.equal(noSuch.body.replace(/value="[^"]*"/g, ''), wrong.body.replace(/value="[^"]*"/g, ''));

    // Per account: 5 failures a minute from anywhere; the 6th is refused even with the right password.
    for (let i = 0; i < 4; i++) {
      const guesser = new CabinetClient(t, `203.0.113.${i + 1}`);
      await guesser.get('/cabinet/login');
      assert.equal((await guesser.post('/cabinet/login', { email: 'target@throttle.example', password: `guess ${i}` })).statusCode, 401);
    }
    const owner = new CabinetClient(t, '198.51.100.52');
    await owner.get('/cabinet/login');
    const locked = await owner.post('/cabinet/login', { email: 'target@throttle.example', password: PASSWORD });
    assert.equal(locked.statusCode, 429);
    assert.match(locked.body, /Too many sign-in attempts/);
    assert.ok(Number(locked.headers['retry-after']) > 0);
    clock.advance(61_000);
    await owner.signIn('target@throttle.example', PASSWORD);

    // Per address: 20 failures a minute over any accounts.
    const sprayer = new CabinetClient(t, '203.0.113.99');
    await sprayer.get('/cabinet/login');
    for (let i = 0; i < 20; i++) {
      assert.equal((await sprayer.post('/cabinet/login', { email: `user${i}@spray.example`, password: 'x' })).statusCode, 401);
    }
    assert.equal((await sprayer.post('/cabinet/login', { email: 'target@throttle.example', password: PASSWORD })).statusCode, 429);
  });

  it('TOTP two-factor: enrol with a QR code, sign in with a code (once), or a recovery code (once)', async () => {
    const email = 'totp@2fa.example';
    const { client } = await cabinetPerson(t, { email, password: PASSWORD, address: '198.51.100.60' });
    await client.get('/cabinet/account');
    const enrol = await client.submit('/cabinet/account/totp', {});
    assert.match(enrol.body, /<h1>Set up two-factor sign-in<\/h1>/);
    assert.match(enrol.body, /<svg[^>]*>/);
    const secret = /Key: <span class="mono">([A-Z2-7 ]+)<\/span>/.exec(enrol.body)?.[1]?.replace(/ /g, '');
    assert.ok(secret !== undefined && base32nopad.decode(secret).length === 20);
    const wrong = await client.submit('/cabinet/account/totp/confirm', { code: '000000' === totpCode(secret, totpStep(clock.now())) ? '111111' : '000000' });
    assert.match(wrong.body, /role="alert">(That code is not right|Your password is not right)/);
    const on = await client.post('/cabinet/account/totp/confirm', { code: totpCode(secret, totpStep(clock.now())), password: PASSWORD });
    assert.equal(on.statusCode, 200, on.body);
    const codes = [...on.body.matchAll(/<li>([a-z0-9]{5}-[a-z0-9]{5})<\/li>/g)].map((match) => match[1]!);
    assert.equal(codes.length, 10);

    // Signing in now asks for a code; the session opens nothing before it.
    const next = new CabinetClient(t, '198.51.100.61');
    await next.get('/cabinet/login');
    const first = await next.post('/cabinet/login', { email, password: PASSWORD });
    assert.equal(first.headers.location, '/cabinet/login/code');
    assert.equal((await next.get('/cabinet/keys')).headers.location, '/cabinet/login/code');
    await next.get('/cabinet/login/code');
    // The code form has the session's CSRF token too.
    assert.equal((await next.post('/cabinet/login/code', { code: totpCode(secret, totpStep(clock.now())) }, { csrf: null })).statusCode, 403);
    const used = totpCode(secret, totpStep(clock.now()));
    assert.equal((await next.post('/cabinet/login/code', { code: used })).statusCode, 401, 'the enrolment code was used already');
    clock.advance(30_000);
    const ok = await next.post('/cabinet/login/code', { code: totpCode(secret, totpStep(clock.now())) });
    assert.equal(ok.statusCode, 303);
    assert.equal((await next.get('/cabinet/keys')).statusCode, 200);

    // A recovery code works once.
    const lost = new CabinetClient(t, '198.51.100.62');
    await lost.get('/cabinet/login');
    await lost.post('/cabinet/login', { email, password: PASSWORD });
    await lost.get('/cabinet/login/code');
    assert.equal((await lost.post('/cabinet/login/code', { code: codes[0]!.toUpperCase() })).statusCode, 303);
    const again = new CabinetClient(t, '198.51.100.63');
    await again.get('/cabinet/login');
    await again.post('/cabinet/login', { email, password: PASSWORD });
    await again.get('/cabinet/login/code');
    assert.equal((await again.post('/cabinet/login/code', { code: codes[0]! })).statusCode, 401);
  });

  it('npm run admin -- partners invite <id> --email prints the link', async () => {
    const origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const dataDir = mkdtempSync(path.join(tmpdir(), 'epa-cabinet-cli-'));
    try {
      const { id } = await t.createPartner({ name: 'Cli invited' });
      const env = { DATA_DIR: dataDir, ADMIN_API_URL: origin, ADMIN_TOKEN: t.adminToken };
      const run = await runAdminCli(['partners', 'invite', id, '--email', 'cli@invite.example', '--json'], env);
      assert.equal(run.code, 0, run.stderr);
      const { url } = JSON.parse(run.stdout) as { url: string };
      assert.match(url, /^https:\/\/cabinet\.example\/cabinet\/invitation\//);
      const text = await runAdminCli(['partners', 'invite', id, '--email', 'cli2@invite.example'], env);
      assert.match(text.stdout, /one use, until .*\nhttps:\/\/cabinet\.example\/cabinet\/invitation\//);
      const missing = await runAdminCli(['partners', 'invite', id], env);
      assert.notEqual(missing.code, 0);
      assert.match(missing.stderr, /needs --email/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
