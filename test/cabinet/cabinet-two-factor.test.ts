import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { totpCode, totpStep } from '../../src/domain/totp.js';
import { hashPassword, PASSWORD_WORK_CONCURRENCY, PASSWORD_WORK_QUEUE, passwordWork, verifyPassword } from '../../src/services/cabinet-passwords.js';
import { WorkGateFull } from '../../src/services/work-gate.js';
import { CabinetClient, cabinetPerson } from '../helpers/cabinet-client.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';

const PASSWORD = 'marble kettle orchard signal';

/**
 * Two-factor and password checks against a stolen session (issue 26.9, 26.10): turning
 * two-factor off needs the password and a code, turning it on needs the password, every such
 * password check spends the sign-in throttles, and argon2 work is bounded per process.
 */
describe('cabinet two-factor against a stolen session', () => {
  const clock = new ManualClock(new Date('2026-03-07T09:00:00.000Z'));
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ clock, env: { WORKER: 'off' } });
  });
  after(() => t.close());

  const keyOf = (body: string) => /Key: <span class="mono">([A-Z2-7 ]+)<\/span>/.exec(body)?.[1]?.replace(/ /g, '') ?? '';
  const code = (secret: string) => totpCode(secret, totpStep(clock.now()));
  const totpOn = async (email: string) =>
    (await t.db.handle.db.selectFrom('cabinet_users').select('totp_enabled_at').where('email', '=', email).executeTakeFirstOrThrow()).totp_enabled_at !== null;
  const signedIn = async (client: CabinetClient) => (await client.get('/cabinet')).statusCode === 200;

  /** A form posted (303, docs/contract.md §9.1) and what the page it led to says in its alert, or 'none'. */
  const alertAfter = async (client: CabinetClient, path: string, fields: Record<string, string>) => {
    await client.get('/cabinet/account');
    const page = await client.submit(path, fields);
    return /role="alert">([^<]*)</.exec(page.body)?.[1] ?? 'none';
  };

  /** Enrols two-factor from the account page; the secret and the recovery codes. */
  async function enrol(client: CabinetClient): Promise<{ secret: string; codes: string[] }> {
    await client.get('/cabinet/account');
    const secret = keyOf((await client.submit('/cabinet/account/totp', {})).body);
    const on = await client.post('/cabinet/account/totp/confirm', { code: code(secret), password: PASSWORD });
    assert.equal(on.statusCode, 200, on.body);
    clock.advance(30_000);
    return { secret, codes: [...on.body.matchAll(/<li>([a-z0-9]{5}-[a-z0-9]{5})<\/li>/g)].map((match) => match[1]!) };
  }

  it('turning two-factor off needs the password and a current code (or a recovery code), not the password alone', async () => {
    const email = 'off@two-factor.example';
    const { client } = await cabinetPerson(t, { email, password: PASSWORD, address: '198.51.100.200' });
    const { secret, codes } = await enrol(client);
    const page = await client.get('/cabinet/account');
    assert.match(page.body, /name="code"/, 'the form asks for a code');

    assert.equal(await alertAfter(client, '/cabinet/account/totp/disable', { password: PASSWORD }), 'Wrong password or code.');
    assert.equal(await alertAfter(client, '/cabinet/account/totp/disable', { password: PASSWORD, code: '12345' }), 'Wrong password or code.');
    assert.equal(await alertAfter(client, '/cabinet/account/totp/disable', { password: 'not the password at all', code: code(secret) }), 'Wrong password or code.');
    assert.equal(await totpOn(email), true);

    await client.get('/cabinet/account');
    const off = await client.submit('/cabinet/account/totp/disable', { password: PASSWORD, code: code(secret) });
    assert.match(off.body, /role="status">Two-factor sign-in is off/);
    assert.equal(await totpOn(email), false);
    clock.advance(61_000);

    // A recovery code stands in for the authenticator, once.
    const again = await enrol(client);
    assert.equal(codes.length, 10);
    assert.equal(await alertAfter(client, '/cabinet/account/totp/disable', { password: PASSWORD, code: again.codes[0]! }), 'none');
    assert.equal(await totpOn(email), false);
  });

  it('the password check of turning two-factor off spends the sign-in throttles: no oracle', async () => {
    const email = 'oracle@two-factor.example';
    const { client } = await cabinetPerson(t, { email, password: PASSWORD, address: '198.51.100.210' });
    const { secret } = await enrol(client);
    const alerts: string[] = [];
    for (let i = 0; i < 30; i++) alerts.push(await alertAfter(client, '/cabinet/account/totp/disable', { password: `guess number ${i}`, code: code(secret) }));
    // Five failures a minute per account, then "too many" whatever is sent: the right password too.
    assert.deepEqual(alerts.slice(0, 5), Array<string>(5).fill('Wrong password or code.'));
    assert.ok(alerts.slice(5).every((alert) => alert.startsWith('Too many wrong passwords')), alerts.slice(5).join(' | '));
    await client.get('/cabinet/account');
    const right = await client.post('/cabinet/account/totp/disable', { password: PASSWORD, code: code(secret) });
    assert.equal(right.statusCode, 303);
    assert.ok(Number(right.headers['retry-after']) > 0);
    assert.match((await client.get(String(right.headers.location))).body, /Too many wrong passwords/);
    // Sign-in shares the budget: the guesses above count there too.
    const other = new CabinetClient(t, '198.51.100.211');
    await other.get('/cabinet/login');
    assert.equal((await other.post('/cabinet/login', { email, password: PASSWORD })).statusCode, 429);
    assert.equal(await totpOn(email), true);
    clock.advance(61_000);
    assert.equal(await alertAfter(client, '/cabinet/account/totp/disable', { password: PASSWORD, code: code(secret) }), 'none');
    assert.equal(await totpOn(email), false);
  });

  it('turning two-factor on needs the current password: a stolen session cannot lock the owner out', async () => {
    const email = 'stolen@two-factor.example';
    const { client: owner } = await cabinetPerson(t, { email, password: PASSWORD, address: '198.51.100.220' });
    // The thief holds a copy of a live session (its cookie), not the password.
    const thief = new CabinetClient(t, '203.0.113.220');
    for (const [name, value] of owner.cookies) thief.cookies.set(name, value);
    const other = new CabinetClient(t, '198.51.100.221');
    await other.signIn(email, PASSWORD);

    await thief.get('/cabinet/account');
    const enrolPage = await thief.submit('/cabinet/account/totp', {});
    assert.match(enrolPage.body, /name="password"/, 'the enrolment form asks for the password');
    const secret = keyOf(enrolPage.body);
    const noPassword = await thief.submit('/cabinet/account/totp/confirm', { code: code(secret) });
    assert.match(noPassword.body, /role="alert">Your password is not right/);
    const guessed = await thief.submit('/cabinet/account/totp/confirm', { code: code(secret), password: 'a guessed password' });
    assert.match(guessed.body, /role="alert">Your password is not right/);
    assert.equal(await totpOn(email), false);
    assert.equal(await signedIn(other), true, "the owner's other session is still signed in");
    // The guesses spent the account's budget.
    const alerts: string[] = [];
    for (let i = 0; i < 5; i++) alerts.push(/role="alert">([^<]*)</.exec((await thief.submit('/cabinet/account/totp/confirm', { code: code(secret), password: `guess ${i}` })).body)?.[1] ?? 'none');
    assert.match(alerts.at(-1) ?? '', /^Too many wrong passwords/);
    assert.equal(await totpOn(email), false);
    clock.advance(61_000);

    // The owner, with the password, turns it on; the other sessions end as before.
    await owner.get('/cabinet/account');
    const fresh = keyOf((await owner.submit('/cabinet/account/totp', {})).body);
    const on = await owner.post('/cabinet/account/totp/confirm', { code: code(fresh), password: PASSWORD });
    assert.equal(on.statusCode, 200, on.body);
    assert.equal(await totpOn(email), true);
    assert.equal(await signedIn(other), false);
  });

  it('argon2 work is bounded per process: 2 at once, 8 waiting, the rest refused at once', async () => {
    assert.equal(PASSWORD_WORK_CONCURRENCY, 2);
    assert.equal(PASSWORD_WORK_QUEUE, 8);
    const stored = await hashPassword(PASSWORD);
    passwordWork.peakRunning = 0;
    const refusedBefore = passwordWork.refused;
    const flood = Array.from({ length: 30 }, (_, i) => verifyPassword(stored, i === 0 ? PASSWORD : `flood ${i}`));
    assert.deepEqual(passwordWork.load, { running: 2, waiting: 8 });
    const outcomes = await Promise.allSettled(flood);
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
    assert.equal(refused.length, 20);
    assert.ok(refused.every((outcome) => outcome.reason instanceof WorkGateFull));
    assert.deepEqual(outcomes.slice(0, 10).map((outcome) => outcome.status === 'fulfilled' && outcome.value), [true, ...Array<boolean>(9).fill(false)]);
    assert.equal(passwordWork.refused - refusedBefore, 20);
    assert.equal(passwordWork.peakRunning, 2);
    assert.deepEqual(passwordWork.load, { running: 0, waiting: 0 });
  });

  it('with the password work full, a password check is a 429 page and the public API answers as ever', async () => {
    const email = 'busy@two-factor.example';
    const { client } = await cabinetPerson(t, { email, password: PASSWORD, address: '198.51.100.230' });
    // Hold every place of the gate (2 running, 8 waiting) until released.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const holders = Array.from({ length: PASSWORD_WORK_CONCURRENCY + PASSWORD_WORK_QUEUE }, () => passwordWork.run(() => held));
    try {
      assert.deepEqual(passwordWork.load, { running: 2, waiting: 8 });
      const browser = new CabinetClient(t, '198.51.100.231');
      await browser.get('/cabinet/login');
      const busy = await browser.post('/cabinet/login', { email, password: PASSWORD });
      assert.equal(busy.statusCode, 429, busy.body);
      assert.equal(busy.headers['retry-after'], '1');
      assert.match(String(busy.headers['content-type']), /text\/html/);
      assert.match(busy.body, /Too many passwords are being checked/);
      await client.get('/cabinet/account');
      const change = await client.post('/cabinet/account/password', { current: PASSWORD, password: 'lantern violet copper meadow', confirm: 'lantern violet copper meadow' });
      assert.equal(change.statusCode, 429);
      // The public API does not wait for password work: every call answers.
      const calls = await Promise.all(Array.from({ length: 20 }, () => t.app.inject({ method: 'GET', url: '/api/v1/currencies' })));
      assert.deepEqual(calls.map((res) => res.statusCode), Array<number>(20).fill(200));
      assert.equal((await client.get('/cabinet/account')).statusCode, 200, 'pages without a password check answer');
    } finally {
      release();
      await Promise.all(holders);
    }
    clock.advance(61_000);
    const after = new CabinetClient(t, '198.51.100.232');
    await after.signIn(email, PASSWORD);
  });

  it('a flood of sign-ins over many addresses: never more than 2 checks at once, only 401s and 429s, the API unaffected', async () => {
    passwordWork.peakRunning = 0;
    const clients = Array.from({ length: 40 }, (_, i) => new CabinetClient(t, `192.0.2.${i + 1}`));
    await Promise.all(clients.map((client) => client.get('/cabinet/login')));
    const [signIns, api] = await Promise.all([
      Promise.all(clients.map((client, i) => client.post('/cabinet/login', { email: `flood${i}@two-factor.example`, password: 'wrong password' }))),
      Promise.all(Array.from({ length: 40 }, () => t.app.inject({ method: 'GET', url: '/api/v1/currencies' }))),
    ]);
    assert.ok(signIns.every((res) => res.statusCode === 401 || res.statusCode === 429), signIns.map((res) => res.statusCode).join(','));
    assert.ok(passwordWork.peakRunning <= PASSWORD_WORK_CONCURRENCY);
    assert.deepEqual(api.map((res) => res.statusCode), Array<number>(40).fill(200));
    assert.deepEqual(passwordWork.load, { running: 0, waiting: 0 });
  });
});
