// test-engines: one (scripts/run-tests.ts): what is tested is the mail followed in a browser; the routes it uses run on both engines in test/cabinet/cabinet-mail.test.ts.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { cabinetPerson } from '../helpers/cabinet-client.js';
import { chromiumSkip, launchChromium } from '../helpers/requirements.js';
import { linkIn, startSmtpInbox } from '../helpers/smtp-inbox.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';

/** Screenshots, for a person to look at (ignored by git). */
const SHOTS = fileURLToPath(new URL('../../test-artifacts/cabinet/mail/', import.meta.url));
const EMAIL = 'forgetful@cabinet.example';

/**
 * "Forgot password" end to end in Chromium (docs/adr/0051-cabinet-mail-period-responses-reference.md): the sign-in page's
 * link, the request, the mail received on a real SMTP server, its link followed in the browser,
 * the new password set and signed in with. No PUBLIC_URL: the app listens on this machine, so
 * the link is built on the request's own (loopback) origin.
 */
describe('forgot password in Chromium, through the mail', { skip: chromiumSkip() }, () => {
  const clock = new ManualClock(new Date('2026-06-01T12:00:00.000Z'));
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtpInbox>>;
  let origin: string;
  let browser: Browser;
  let page: Page;

  before(async () => {
    smtp = await startSmtpInbox();
    t = await buildTestApp({ clock, env: { WORKER: 'off', SMTP_URL: smtp.url } });
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
    await cabinetPerson(t, { email: EMAIL, password: 'granite willow harbor chime' });
    mkdirSync(SHOTS, { recursive: true });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.close();
  });

  it('asks for a link from the sign-in page, follows the mailed link, sets a new password and signs in with it', async () => {
    await page.goto(`${origin}/cabinet/login`);
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.getByRole('heading', { name: 'Forgot password' }).waitFor();
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByRole('button', { name: 'Mail me a reset link' }).click();
    await page.getByRole('status').filter({ hasText: 'If an account has this email' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/cabinet/forgot-password');
    await page.screenshot({ path: path.join(SHOTS, 'forgot-password-sent.png'), fullPage: true });

    while ((await t.runtime.mailWorker.tick()) > 0);
    const mails = smtp.to(EMAIL).filter((mail) => mail.subject === 'Reset your partner cabinet password');
    assert.equal(mails.length, 1);
    const link = linkIn(mails[0], `${origin}/cabinet/password-reset/`);

    await page.goto(link);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    const fresh = 'pepper glacier sonnet ridge';
    await page.getByLabel('New password').fill(fresh);
    await page.getByLabel('The same password again').fill(fresh);
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByText('Your new password is set').waitFor();
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(fresh);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();

    // The mailed link was used up.
    const again = await page.goto(link);
    assert.equal(again?.status(), 404);
    await page.getByText('Forgot password').first().waitFor();
  });
});
