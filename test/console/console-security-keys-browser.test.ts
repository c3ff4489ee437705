// test-engines: one (scripts/run-tests.ts): the ceremony in a browser is what is tested; the server's checks run on both engines in console-security-keys.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { freePort } from '../helpers/process/waits.js';
import { chromiumSkip } from '../helpers/requirements.js';
import { startHarness, type Harness } from '../lifecycle/lifecycle-helpers.js';
import { assertAxeClean, firstSignIn, noticeText, openConsoleBrowser, type ConsoleBrowser } from './console-browser-session.js';
import { CONSOLE_PASSWORD } from './console-helpers.js';

const EMAIL = 'keys-browser@ops.example';

/**
 * Security keys in a real browser (Debian's chromium through playwright-core) with the DevTools
 * protocol's virtual authenticator: sign in with TOTP, add a key on the account page, sign out,
 * sign in with the password and the key (no code typed), see its last use, remove it. The pages
 * run @simplewebauthn/browser under the console's CSP: no CSP refusal or console error anywhere,
 * and axe-core finds no serious or critical violation on the account page with a key.
 * WebAuthn needs a secure context, which http://localhost is (127.0.0.1 is not): PUBLIC_URL and
 * the browser both use localhost.
 */
describe('operator security keys in Chromium', { skip: chromiumSkip() }, () => {
  let h: Harness;
  let origin: string;
  let browser: ConsoleBrowser | undefined;
  let page: Page;

  before(async () => {
    // PUBLIC_URL must name the port before the app is built.
    const port = await freePort();
    origin = `http://localhost:${port}`;
    h = await startHarness({ PUBLIC_URL: origin });
    await h.t.app.listen({ port, host: '127.0.0.1' });
    browser = await openConsoleBrowser();
    page = browser.page;
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'usb', hasResidentKey: false, hasUserVerification: true, isUserVerified: true },
    });
  });
  after(async () => {
    await browser?.close();
    await h.t.close();
  });

  it('sign in with TOTP, add a key, sign out, sign in with the key instead of a code, remove it', async () => {
    const invited = await h.t.admin('POST', '/admin/v1/operators', { email: EMAIL, role: 'viewer', name: 'Key Person' });
    const invitation = new URL(invited.json<{ url: string }>().url).pathname;
    h.t.secrets.add(invitation.split('/').pop() ?? '', 'console invitation');
    await firstSignIn(page, origin, invitation, EMAIL, CONSOLE_PASSWORD, h.clock.now());

    await page.goto(`${origin}/console/account`);
    assert.match(await page.locator('#security-keys + p + p').innerText(), /You have no security key/);
    await page.getByLabel('Name of the key').fill('Desk key');
    await page.getByRole('button', { name: 'Add a security key' }).click();
    assert.match(await noticeText(page), /The security key is added/);
    const row = page.locator('section[aria-labelledby="security-keys"] tbody tr');
    assert.equal(await row.count(), 1);
    assert.match(await row.first().innerText(), /^Desk key\t.+\t—\t/);
    await assertAxeClean(page, '/console/account with a key');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/console\/login\?done=signed-out/);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(CONSOLE_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/console\/login\/code/);
    await assertAxeClean(page, 'the code page with a key');
    await page.getByRole('button', { name: 'Use my security key' }).click();
    await page.waitForURL(`${origin}/console`);

    await page.goto(`${origin}/console/account`);
    assert.match(await page.locator('td[data-key-last-used]').innerText(), /\d/, 'the last use is a time now');
    await page.locator('summary', { hasText: 'Remove Desk key' }).click();
    await page.locator('form[action$="/remove"]').getByRole('button', { name: 'Remove Desk key' }).click();
    assert.match(await noticeText(page), /The security key is removed/);
    assert.equal(await row.count(), 0);
    assert.deepEqual(browser?.problems, []);
  });
});
