import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PASSWORD_RESET_TTL_MS } from '../../src/services/cabinet-password-changes.js';
import { CabinetClient } from '../helpers/cabinet-client.js';
import { htmlProblems } from '../helpers/html-check.js';
import { linkIn, startSmtpInbox } from '../helpers/smtp-inbox.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';

const PUBLIC_URL = 'https://cabinet.partner-exchange.test';
const PASSWORD = 'lantern quarry velvet ocean';
const NEW_PASSWORD = 'meadow copper falcon drift';
const OWNER = 'owner@mail.example';

/**
 * The cabinet's mail (docs/adr/0051-cabinet-mail-period-responses-reference.md), received on a real SMTP server started
 * here and delivered by the mail worker: invitations (the operator's and an owner's) whose link
 * is followed; "Forgot password" with the same answer for any email, throttled, its mailed link
 * used once and expiring; a notice of a sign-in from a new device; a notice of a new key.
 */
describe('cabinet mail', () => {
  const clock = new ManualClock(new Date('2026-05-04T09:00:00.000Z'));
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtpInbox>>;
  let partnerId: string;
  let owner: CabinetClient;

  before(async () => {
    smtp = await startSmtpInbox();
    t = await buildTestApp({ clock, env: { WORKER: 'off', SMTP_URL: smtp.url, MAIL_FROM: 'Exchange <cabinet@exchange.test>', PUBLIC_URL } });
    partnerId = (await t.createPartner({ name: 'Mail Partner' })).id;
  });
  after(async () => {
    await t?.close();
    await smtp?.close();
  });

  /** Delivers every due mail through the worker. */
  const deliver = async () => {
    while ((await t.runtime.mailWorker.tick()) > 0);
  };

  /** Follows an invitation or reset link of a mail: its page, then the password form. */
  const setPassword = async (client: CabinetClient, link: string, password: string) => {
    assert.ok(link.startsWith(`${PUBLIC_URL}/cabinet/`), link);
    const path = new URL(link).pathname;
    const form = await client.get(path);
    assert.equal(form.statusCode, 200, form.body.slice(0, 500));
    assert.deepEqual(htmlProblems(form.body), []);
    return client.post(path, { password, confirm: password });
  };

  it("the operator's invitation is mailed; its link sets the password; the first sign-in tells of no new device", async () => {
    const invited = await t.admin('POST', `/admin/v1/partners/${partnerId}/invitations`, { email: OWNER });
    assert.equal(invited.statusCode, 201, invited.body);
    await deliver();
    const [mail] = smtp.to(OWNER);
    assert.equal(mail?.subject, 'Your invitation to the exchange partner cabinet');
    assert.equal(linkIn(mail, PUBLIC_URL), invited.json<{ url: string }>().url);
    owner = new CabinetClient(t, '198.51.100.21');
    const set = await setPassword(owner, linkIn(mail, PUBLIC_URL), PASSWORD);
    assert.equal(set.statusCode, 303);
    await owner.signIn(OWNER, PASSWORD);
    await deliver();
    assert.equal(smtp.to(OWNER).length, 1, 'no sign-in notice for the first device');
  });

  it("a sign-in from a device not seen before is told by mail; a known one is not", async () => {
    const again = new CabinetClient(t, '198.51.100.21');
    await again.signIn(OWNER, PASSWORD);
    await deliver();
    assert.equal(smtp.to(OWNER).length, 1, 'the same browser and address: no notice');
    const elsewhere = new CabinetClient(t, '203.0.113.77');
    await elsewhere.signIn(OWNER, PASSWORD);
    await deliver();
    const notices = smtp.to(OWNER).filter((mail) => mail.subject === 'New sign-in to your partner cabinet account');
    assert.equal(notices.length, 1);
    assert.match(notices[0]?.text ?? '', /Address: 203\.0\.113\.77/);
    assert.match(notices[0]?.text ?? '', /When: +2026-05-04 09:00 UTC/);
    // A wrong password tells nothing.
    const wrong = new CabinetClient(t, '203.0.113.78');
    await wrong.get('/cabinet/login');
    assert.equal((await wrong.post('/cabinet/login', { email: OWNER, password: 'not the password at all' })).statusCode, 401);
    await deliver();
    assert.equal(smtp.to(OWNER).length, 2);
  });

  it("an owner's invitation is mailed to the invited person with the role, and its link works", async () => {
    await owner.get('/cabinet/team');
    const shown = await owner.submit('/cabinet/team/invitations', { email: 'dev@mail.example', role: 'developer' });
    assert.match(shown.body, /The link is mailed to them/);
    const shownUrl = /<input type="text" id="invitation-link" value="([^"]+)"/.exec(shown.body)?.[1];
    await deliver();
    const [mail] = smtp.to('dev@mail.example');
    assert.match(mail?.text ?? '', /owner@mail\.example invited you to the partner cabinet as developer\./);
    assert.equal(linkIn(mail, PUBLIC_URL), shownUrl);
    const developer = new CabinetClient(t, '198.51.100.22');
    assert.equal((await setPassword(developer, linkIn(mail, PUBLIC_URL), PASSWORD)).statusCode, 303);
    await developer.signIn('dev@mail.example', PASSWORD);
  });

  it('a new key is told to the owners and to the person who made it', async () => {
    const developer = new CabinetClient(t, '198.51.100.22');
    await developer.signIn('dev@mail.example', PASSWORD);
    await developer.get('/cabinet/keys');
    assert.equal((await developer.post('/cabinet/keys', { label: 'Checkout server', kind: 'live', scope: 'full' })).statusCode, 303);
    await deliver();
    const subject = 'New live server key created in your partner cabinet';
    const [toOwner] = smtp.to(OWNER).filter((mail) => mail.subject === subject);
    const [toDeveloper] = smtp.to('dev@mail.example').filter((mail) => mail.subject === subject);
    assert.ok(toOwner !== undefined && toDeveloper !== undefined);
    assert.match(toOwner.text, /dev@mail\.example created a new live server key/);
    assert.match(toOwner.text, /Label: +Checkout server/);
    const keyId = /Key id: (\S+)/.exec(toOwner.text)?.[1];
    const row = await t.db.handle.db.selectFrom('api_keys').select(['partner_id', 'label']).where('key_id', '=', keyId ?? '').executeTakeFirstOrThrow();
    assert.deepEqual(row, { partner_id: partnerId, label: 'Checkout server' });
  });

  it('"Forgot password": the same answer for any email, mail only to an account; the link works once, within the hour', async () => {
    const login = await new CabinetClient(t).get('/cabinet/login');
    assert.match(login.body, /<a href="\/cabinet\/forgot-password">Forgot password\?<\/a>/);
    const answers: string[] = [];
    for (const [email, address] of [['nobody@mail.example', '198.51.100.31'], [OWNER, '198.51.100.32']] as const) {
      const client = new CabinetClient(t, address);
      const form = await client.get('/cabinet/forgot-password');
      assert.deepEqual(htmlProblems(form.body), []);
      const posted = await client.post('/cabinet/forgot-password', { email });
      assert.equal(posted.statusCode, 303);
      assert.equal(posted.headers.location, '/cabinet/forgot-password?done=sent');
      const page = await client.get(String(posted.headers.location));
      assert.deepEqual(htmlProblems(page.body), []);
      answers.push(page.body.replace(/name="_csrf" value="[^"]+"/, ''));
    }
    assert.equal(answers[0], answers[1], 'the same page whether or not the account exists');
    await deliver();
    assert.deepEqual(smtp.to('nobody@mail.example'), []);
    const resets = smtp.to(OWNER).filter((mail) => mail.subject === 'Reset your partner cabinet password');
    assert.equal(resets.length, 1);
    const link = linkIn(resets[0], `${PUBLIC_URL}/cabinet/password-reset/`);

    // A second request voids the first link: only the newest works.
    const client = new CabinetClient(t, '198.51.100.33');
    await client.get('/cabinet/forgot-password');
    assert.equal((await client.post('/cabinet/forgot-password', { email: OWNER.toUpperCase() })).statusCode, 303);
    await deliver();
    const newest = linkIn(smtp.to(OWNER).filter((mail) => mail.subject === 'Reset your partner cabinet password')[1], `${PUBLIC_URL}/cabinet/password-reset/`);
    assert.notEqual(newest, link);
    const voided = await client.get(new URL(link).pathname);
    assert.equal(voided.statusCode, 404);
    assert.match(voided.body, /Forgot password/);

    // Used once: sets the password, signs every session out; the second use is refused.
    assert.equal((await setPassword(client, newest, NEW_PASSWORD)).statusCode, 303);
    assert.equal((await owner.get('/cabinet')).statusCode, 303, 'the signed-in session ended');
    assert.equal((await client.get(new URL(newest).pathname)).statusCode, 404);
    await owner.signIn(OWNER, NEW_PASSWORD);

    // A link past its hour is refused.
    await client.post('/cabinet/forgot-password', { email: OWNER });
    await deliver();
    const late = linkIn(smtp.to(OWNER).filter((mail) => mail.subject === 'Reset your partner cabinet password')[2], `${PUBLIC_URL}/cabinet/password-reset/`);
    clock.advance(PASSWORD_RESET_TTL_MS);
    assert.equal((await client.get(new URL(late).pathname)).statusCode, 404);
  });

  it('reset requests are throttled per email typed, whoever asks: the same answer, no more mail', async () => {
    clock.advance(120_000);
    const before = smtp.to(OWNER).length;
    const locations: string[] = [];
    for (let i = 0; i < 5; i++) {
      const client = new CabinetClient(t, `192.0.2.${10 + i}`);
      await client.get('/cabinet/forgot-password');
      locations.push(String((await client.post('/cabinet/forgot-password', { email: OWNER })).headers.location));
    }
    assert.deepEqual(locations, [...Array<string>(3).fill('/cabinet/forgot-password?done=sent'), ...Array<string>(2).fill('/cabinet/forgot-password?problem=wait')]);
    const waited = await new CabinetClient(t).get('/cabinet/forgot-password?problem=wait');
    assert.match(waited.body, /Too many reset requests/);
    await deliver();
    assert.equal(smtp.to(OWNER).length, before + 3);
  });
});
