// test-engines: one (scripts/run-tests.ts): the pages, forms and keyboard in a browser are what is tested; every console route runs on both engines in test/console/console-pages.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { totpCode, totpStep } from '../../src/domain/totp.js';
import { seriousAxeFindings } from '../helpers/axe.js';
import { chromiumSkip } from '../helpers/requirements.js';
import { shortFixedOrder, startHarness, type Harness, type OrderJson } from '../lifecycle/lifecycle-helpers.js';
import { openConsoleBrowser, type ConsoleBrowser } from './console-browser-session.js';
import { CONSOLE_PASSWORD } from './console-helpers.js';

const EMAIL = 'browser@ops.example';

/**
 * The operator console in a real browser (Debian's chromium through playwright-core): invitation,
 * password, sign-in with the required two-factor enrolment, every page checked by axe-core (no
 * serious or critical violation), the attention queue resolved by keyboard alone, the phone width,
 * and no console error or CSP refusal anywhere.
 */
describe('the operator console in Chromium', { skip: chromiumSkip() }, () => {
  let h: Harness;
  let origin: string;
  let browser: ConsoleBrowser | undefined;
  let page: Page;
  let order: OrderJson;

  before(async () => {
    h = await startHarness({ REFUND_HOLD_MINUTES: '60' });
    order = await shortFixedOrder(h);
    origin = await h.t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await openConsoleBrowser();
    page = browser.page;
  });
  after(async () => {
    await browser?.close();
    await h.t.close();
  });

  /** axe-core run on the page as it is: the serious and critical violations, in words. */
  async function axeProblems(): Promise<string[]> {
    return (await seriousAxeFindings(page)).map((finding) => `${finding.rule} (${finding.impact}): ${finding.help} at ${finding.targets.join(', ')}`);
  }

  it('invitation, password, sign-in and the required two-factor enrolment', async () => {
    const invited = await h.t.admin('POST', '/admin/v1/operators', { email: EMAIL, role: 'admin', name: 'Browser Admin' });
    const url = new URL(invited.json<{ url: string }>().url);
    h.t.secrets.add(url.pathname.split('/').pop() ?? '', 'console invitation');
    await page.goto(`${origin}${url.pathname}`);
    assert.deepEqual(await axeProblems(), []);
    await page.getByLabel('New password').fill(CONSOLE_PASSWORD);
    await page.getByLabel('The same password again').fill(CONSOLE_PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.waitForURL(/\/console\/login/);
    assert.deepEqual(await axeProblems(), []);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(CONSOLE_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/console\/login\/code/);
    assert.match(await page.locator('h1').innerText(), /Set up two-factor/);
    assert.deepEqual(await axeProblems(), []);
    const key = (await page.locator('#totp-key').innerText()).replace(/ /g, '');
    await page.getByLabel('Code from the app').fill(totpCode(key, totpStep(h.clock.now())));
    await page.getByRole('button', { name: /Turn on two-factor/ }).click();
    await page.locator('ul.codes li').first().waitFor();
    assert.equal(await page.locator('ul.codes li').count(), 10);
    await page.getByRole('link', { name: 'Continue to the console' }).click();
    await page.waitForURL(`${origin}/console`);
    assert.match(await page.locator('h1').innerText(), /Attention/);
  });

  it('every page has no serious or critical accessibility violation', async () => {
    for (const pathname of ['/console', `/console/orders?q=${order.short_id}`, `/console/orders/${order.id}`, '/console/audit', '/console/people', '/console/account']) {
      await page.goto(`${origin}${pathname}`);
      assert.deepEqual(await axeProblems(), [], pathname);
    }
  });

  it('a held refund is resolved from the attention queue by keyboard alone', async () => {
    await page.goto(`${origin}/console`);
    const target = `Continue ${order.short_id}`;
    let reached = false;
    for (let i = 0; i < 80 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate<boolean>(`document.activeElement?.textContent?.trim() === ${JSON.stringify(target)}`);
    }
    assert.ok(reached, `Tab reaches “${target}”`);
    await page.keyboard.press('Enter');
    await page.locator('p.notice').waitFor();
    assert.match(await page.locator('p.notice').innerText(), /The order continues/);
    assert.equal(await page.getByRole('button', { name: target }).count(), 0);
    await page.goto(`${origin}/console/audit`);
    assert.match(await page.locator('main').innerText(), new RegExp(`person:${EMAIL.replace('.', '\\.')}\\s+POST /console/orders/:id/continue`));
  });

  it('is usable at phone width: nothing wider than the screen but the tables, which scroll', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    for (const pathname of ['/console', '/console/audit', '/console/people']) {
      await page.goto(`${origin}${pathname}`);
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      assert.ok(overflow <= 1, `${pathname} is ${overflow} px wider than the screen`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    assert.deepEqual(browser?.problems, []);
  });
});
