// test-engines: one (scripts/run-tests.ts): what is tested is how the pages read in a browser (axe-core, screenshots); every route they use runs on both engines in test/cabinet/cabinet-*.test.ts.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axeFindings, type AxeFinding } from '../helpers/axe.js';
import { cabinetPerson } from '../helpers/cabinet-client.js';
import { chromiumSkip, launchChromium } from '../helpers/requirements.js';
import { createOrder, shortFixedOrder, simulateDeposit, startHarness, type Harness } from '../lifecycle/lifecycle-helpers.js';

/** Screenshots of every page, for a person to look at (ignored by git). */
const SHOTS = fileURLToPath(new URL('../../test-artifacts/cabinet/pages/', import.meta.url));
const EMAIL = 'tour@cabinet.example';
const PASSWORD = 'orchard basalt lantern tide';
const SIZES = [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;
const MODES = ['live', 'test'] as const;
const THEMES = ['light', 'dark'] as const;

/**
 * Every page of the cabinet, in both modes (test/live) and both themes (the system's light and
 * dark), at desktop and phone width: axe-core finds no violation (of any impact), and a
 * screenshot of each is written to test-artifacts/cabinet/pages/ for people to look at.
 */
describe('every cabinet page in Chromium: axe-core in both modes and themes, screenshots', { skip: chromiumSkip() }, () => {
  let h: Harness;
  let origin: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const pages: Record<(typeof MODES)[number], Array<[string, string]>> = { live: [], test: [] };
  const signedOut: Array<[string, string]> = [];

  before(async () => {
    h = await startHarness();
    origin = await h.t.app.listen({ port: 0, host: '127.0.0.1' });
    mkdirSync(SHOTS, { recursive: true });
    await cabinetPerson(h.t, { email: EMAIL, password: PASSWORD, partnerId: h.partner.id });
    // What the pages show: a live order waiting, a held refund, a sandbox order past its
    // deposit, an endpoint of each mode with a delivery.
    const waiting = await createOrder(h);
    const held = await shortFixedOrder(h);
    const sandboxKey = (await h.t.admin('POST', `/admin/v1/partners/${h.partner.id}/keys`, { sandbox: true })).json<{ api_key: string }>().api_key;
    const sandboxOrder = await createOrder(h, {}, sandboxKey);
    await simulateDeposit(h, sandboxOrder.id);
    await h.t.runtime.worker.tick();
    const liveHook = await h.t.runtime.webhooks.create({ partnerId: h.partner.id, mode: 'live' }, { url: 'http://127.0.0.1:9/tour-live', description: 'live hook' });
    const testHook = await h.t.runtime.webhooks.create({ partnerId: h.partner.id, mode: 'sandbox' }, { url: 'http://127.0.0.1:9/tour-test', description: 'test hook' });
    await h.t.runtime.webhooks.ping(liveHook.endpoint.id, h.partner.id);
    await h.t.runtime.webhooks.ping(testHook.endpoint.id, h.partner.id);
    const common: Array<[string, string]> = [
      ['overview', '/cabinet'],
      ['orders', '/cabinet/orders'],
      ['keys', '/cabinet/keys'],
      ['webhooks', '/cabinet/webhooks'],
      ['settings', '/cabinet/settings'],
      ['account', '/cabinet/account'],
      ['team', '/cabinet/team'],
      ['requests', '/cabinet/requests'],
      ['not-found', '/cabinet/no-such-page'],
    ];
    pages.live = [...common, ['order-waiting', `/cabinet/orders/${waiting.id}`], ['order-held', `/cabinet/orders/${held.id}`], ['webhook', `/cabinet/webhooks/${liveHook.endpoint.id}`]];
    pages.test = [...common, ['order-deposited', `/cabinet/orders/${sandboxOrder.id}`], ['webhook', `/cabinet/webhooks/${testHook.endpoint.id}`]];
    const invited = await h.t.admin('POST', `/admin/v1/partners/${h.partner.id}/invitations`, { email: 'tour-invited@cabinet.example' });
    signedOut.push(
      ['login', '/cabinet/login'],
      ['invitation', new URL(invited.json<{ url: string }>().url).pathname],
      ['invitation-invalid', '/cabinet/invitation/not-a-token'],
      ['forgot-password', '/cabinet/forgot-password'],
      ['forgot-password-sent', '/cabinet/forgot-password?done=sent'],
      ['password-reset-invalid', '/cabinet/password-reset/not-a-token'],
      ['api-reference', '/cabinet/api-reference'],
    );

    browser = await launchChromium();
    context = await browser.newContext({ viewport: SIZES[0], timezoneId: 'America/New_York' });
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await h?.t.close();
  });

  /** Each size: the screenshot, then axe-core; its violations (of any impact) are answered. */
  async function visit(url: string, shotName: string): Promise<Array<AxeFinding & { url: string; size: string }>> {
    const found: Array<AxeFinding & { url: string; size: string }> = [];
    const res = await page.goto(`${origin}${url}`);
    assert.ok(res !== null && [200, 404].includes(res.status()), `${url}: ${res?.status()}`);
    for (const size of SIZES) {
      await page.setViewportSize({ width: size.width, height: size.height });
      // The API reference is many screens long: its first screen is the picture, given more time
      // on a loaded machine (a full page of it outlasts the timeout); axe-core reads all of it.
      const long = url.startsWith('/cabinet/api-reference');
      await page.screenshot({ path: path.join(SHOTS, `${shotName}-${size.name}.png`), fullPage: !long, timeout: long ? 120_000 : undefined });
      for (const finding of await axeFindings(page)) found.push({ ...finding, url, size: size.name });
    }
    return found;
  }

  const withMode = (url: string, mode: string) => `${url}${url.includes('?') ? '&' : '?'}mode=${mode}`;

  for (const theme of THEMES) {
    it(`signed out, ${theme} theme: no axe-core violation`, async () => {
      await page.emulateMedia({ colorScheme: theme });
      const found = [];
      for (const [name, url] of signedOut) found.push(...(await visit(url, `${name}-${theme}`)));
      assert.deepEqual(found, []);
    });
  }

  it('signs in', async () => {
    await page.goto(`${origin}/cabinet/login`);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  });

  for (const mode of MODES) {
    for (const theme of THEMES) {
      it(`${mode} mode, ${theme} theme: every page has no axe-core violation`, async () => {
        await page.emulateMedia({ colorScheme: theme });
        const found = [];
        for (const [name, url] of pages[mode]) found.push(...(await visit(withMode(url, mode), `${mode}-${theme}-${name}`)));
        assert.deepEqual(found, []);
      });
    }
  }

  it("times read in the browser's time zone, UTC on hover; the theme follows the system setting", async () => {
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(`${origin}/cabinet/orders?mode=live`);
    const first = page.locator('main time[datetime]').first();
    const utc = (await first.getAttribute('datetime'))!;
    const [title, text] = [await first.getAttribute('title'), await first.innerText()];
    assert.equal(title, `${utc.slice(0, 16).replace('T', ' ')} UTC`);
    // This context's zone is New York: the text is the same instant there, named.
    const expected = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' }).format(new Date(utc));
    assert.equal(text, expected);
    assert.match(text, /E[SD]T$/);
    const background = () => page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
    assert.equal(await background(), 'rgb(255, 255, 255)');
    await page.emulateMedia({ colorScheme: 'dark' });
    assert.equal(await background(), 'rgb(13, 17, 23)');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('the two-factor enrolment page too, in both themes', async () => {
    await page.goto(`${origin}/cabinet/account`);
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    await page.getByRole('img', { name: /QR code/ }).waitFor();
    const found = [];
    for (const theme of THEMES) {
      await page.emulateMedia({ colorScheme: theme });
      found.push(...(await visit('/cabinet/account/totp', `two-factor-enrol-${theme}`)));
    }
    assert.deepEqual(found, []);
  });
});
