// test-engines: one (scripts/run-tests.ts): the pages, scripts and forms in a browser are what is tested; every cabinet route they use runs on both engines in test/cabinet/cabinet-*.test.ts.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { SESSION_IDLE_MS } from '../../src/services/account-audience.js';
import { CHROMIUM_ARGS, chromiumExecutable, chromiumSkip } from '../helpers/requirements.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';

/** Screenshots of every page, for a person to look at (ignored by git). */
const SHOTS = fileURLToPath(new URL('../../test-artifacts/cabinet/', import.meta.url));
const EMAIL = 'browser@cabinet.example';
const PASSWORD = 'harbor violet engine sparrow';
const ORDER = {
  coin_from: 'BTC',
  network_from: 'BTC',
  coin_to: 'ETH',
  network_to: 'ETH',
  amount_from: 0.1,
  rate_type: 'float',
  recipient_address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
  refund_address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
};

/**
 * The partner cabinet in a real browser (Debian's chromium through playwright-core, issue 16):
 * invitation → password → sign in → a sandbox key copied once → an order made with it through
 * the API in the list → its timeline after a sandbox deposit → the key revoked → 401; plus
 * sign-in throttling, CSRF refusal, session expiry, no secret left in a page, keyboard use, the
 * phone width, and no CSP violation anywhere. One browser, one app, in this process.
 */
describe('the partner cabinet in Chromium', { skip: chromiumSkip() }, () => {
  const clock = new ManualClock(new Date('2026-03-03T08:00:00.000Z'));
  let t: TestApp;
  let origin: string;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  const problems: string[] = [];

  before(async () => {
    t = await buildTestApp({ clock, env: { WORKER: 'off' } });
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
    profile = mkdtempSync(path.join(tmpdir(), 'epa-chromium-'));
    mkdirSync(SHOTS, { recursive: true });
    context = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumExecutable(),
      headless: true,
      args: [...CHROMIUM_ARGS, '--disable-quic', '--no-first-run'],
      viewport: { width: 1280, height: 900 },
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    page = watch(context.pages()[0] ?? (await context.newPage()));
  });
  after(async () => {
    await context?.close();
    if (profile !== undefined) rmSync(profile, { recursive: true, force: true });
    await t.close();
  });

  /** Every page's console errors, CSP refusals, failed subresources and script errors go to `problems`. */
  function watch(watched: Page): Page {
    watched.on('console', (message) => {
      // A page answered 4xx on purpose (refusals, 401 of a wrong password) logs "Failed to load
      // resource" for the document itself; subresources are checked by status below.
      if (/^Failed to load resource/.test(message.text())) return;
      if (message.type() === 'error' || /Content.Security.Policy|Refused to/i.test(message.text())) problems.push(`console ${message.type()}: ${message.text()}`);
    });
    watched.on('response', (response) => {
      if (response.request().resourceType() !== 'document' && response.status() >= 400) problems.push(`${response.status()} for ${response.url()}`);
    });
    watched.on('requestfailed', (request) => problems.push(`request failed: ${request.url()} ${request.failure()?.errorText ?? ''}`));
    watched.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    return watched;
  }

  const shot = (name: string, on: Page = page) => on.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  const api = (method: string, url: string, key: string, body?: unknown) =>
    fetch(`${origin}${url}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  let partnerId: string;
  let apiKey: string;
  let orderId: string;
  let orderShortId: string;

  it('invitation → password → sign in', async () => {
    partnerId = (await t.createPartner({ name: 'Browser Partner' })).id;
    const invited = await t.admin('POST', `/admin/v1/partners/${partnerId}/invitations`, { email: EMAIL });
    assert.equal(invited.statusCode, 201, invited.body);
    await page.goto(`${origin}${new URL(invited.json<{ url: string }>().url).pathname}`);
    await shot('invitation');
    await page.getByLabel('New password').fill('password1234');
    await page.getByLabel('The same password again').fill('password1234');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('alert').filter({ hasText: 'too easy to guess' }).waitFor();
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('The same password again').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('Your password is set').waitFor();
    await shot('login');
    // By keyboard alone: Tab to the fields, Enter submits.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('document.activeElement?.getAttribute("name")'), 'email');
    await page.keyboard.type(EMAIL);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await shot('overview');
  });

  it('a sandbox key is shown once with a copy button, and not again after a reload', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    // Test mode (docs/contract.md §9.1): the switch comes back to this page, with the banner, sandbox keys.
    await page.getByRole('button', { name: 'Switch to test mode' }).click();
    await page.getByRole('note').filter({ hasText: 'Test mode' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/cabinet/keys');
    await page.getByRole('heading', { name: 'Create a sandbox key' }).waitFor();
    await shot('keys-test-mode');
    await page.getByLabel('Label').fill('browser test');
    await page.getByRole('button', { name: 'Create key' }).click();
    const field = page.getByLabel('API key');
    apiKey = await field.inputValue();
    assert.match(apiKey, /^pk_test_[a-z0-9]+\.[A-Za-z0-9_-]{43}$/);
    await page.getByRole('button', { name: 'Copy key' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), apiKey);
    await shot('keys-created');
    // The form's answer was a redirect: the page showing the key is a GET of its own address.
    const shownAt = page.url();
    assert.match(new URL(shownAt).search, /^\?created=[0-9a-f-]{36}&mode=test$/);
    const secret = apiKey.split('.')[1]!;
    // The browser's own reload of that page: the same GET again, nothing posted, no key.
    const reloaded = await page.reload();
    assert.equal(reloaded?.request().method(), 'GET');
    assert.equal(reloaded?.status(), 200);
    assert.equal(page.url(), shownAt);
    await page.getByText('is not shown again').waitFor();
    assert.ok(!(await page.content()).includes(secret), 'the secret is not in the page after a reload');
    assert.equal(await page.getByLabel('API key').count(), 0);
    assert.equal(await page.getByRole('cell', { name: 'browser test', exact: true }).count(), 1, 'the reload made no second key');
    await shot('keys');
    // Back to the list before the key, and forward again: no-store pages are asked anew, without it.
    await page.goBack();
    assert.ok(!(await page.content()).includes(secret), 'the secret is not in the page before it');
    await page.goForward();
    assert.equal(page.url(), shownAt);
    assert.ok(!(await page.content()).includes(secret), 'the secret is not in the page after Back and Forward');
  });

  it('an order made with the key through the API appears in the list; its detail shows the timeline after a sandbox deposit', async () => {
    const created = await api('POST', '/api/v1/partner/orders', apiKey, ORDER);
    assert.equal(created.status, 201);
    const order = (await created.json()) as { id: string; short_id: string };
    orderId = order.id;
    orderShortId = order.short_id;
    // Still in test mode: the list is of sandbox orders.
    await page.getByRole('link', { name: 'Orders' }).click();
    await page.getByText('Sandbox orders, newest first').waitFor();
    await page.getByRole('link', { name: order.short_id }).waitFor();
    await shot('orders');
    assert.equal((await api('POST', `/api/v1/partner/sandbox/orders/${orderId}/deposit`, apiKey)).status, 200);
    await t.runtime.worker.tick();
    await page.getByRole('link', { name: order.short_id }).click();
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    const timeline = await page.locator('ol.timeline').innerText();
    assert.match(timeline, /Order created \(now waiting deposit\)/);
    assert.match(timeline, /Deposit seen on the chain \(now confirming\)/);
    // The deposit came: no QR code invites a second one.
    assert.equal(await page.getByRole('img', { name: /QR code of the deposit/ }).count(), 0);
    await shot('order-detail');
  });

  let endpointPath: string;

  it('webhooks: an endpoint with its secret shown once with a copy button, a test event in the delivery log, resend', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel('URL').fill('http://127.0.0.1:9/browser-hook');
    await page.getByLabel('Description (optional)').fill('browser test hook');
    await page.getByLabel('order.created').check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = await page.getByLabel('Signing secret').inputValue();
    assert.match(secret, /^whsec_[A-Za-z0-9+/=]+$/);
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), secret);
    await shot('webhook-created');
    endpointPath = new URL(page.url()).pathname;
    assert.match(endpointPath, /^\/cabinet\/webhooks\/[0-9a-f-]{36}$/);
    const reloaded = await page.reload();
    assert.equal(reloaded?.request().method(), 'GET');
    await page.getByText('is not shown again').waitFor();
    assert.ok(!(await page.content()).includes(secret), 'the signing secret is not in the page after a reload');
    assert.equal(await page.getByLabel('Signing secret').count(), 0);
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.getByText('A test event (ping) is on its way').waitFor();
    // The form answered 303: the page is a GET, and reloading it sends no second ping.
    const pinged = await page.reload();
    assert.equal(pinged?.request().method(), 'GET');
    assert.equal(await page.locator('table tbody tr').count(), 1, 'one ping, the reload sent none');
    await page.getByRole('button', { name: /^Resend ping / }).first().click();
    await page.getByText('The delivery is sent again now').waitFor();
    assert.ok((await page.locator('table tbody tr').count()) >= 1, 'the delivery log lists the ping');
    await shot('webhook-deliveries');
    await page.getByRole('link', { name: 'All endpoints' }).click();
    await page.getByRole('link', { name: 'http://127.0.0.1:9/browser-hook' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'http://127.0.0.1:9/browser-hook' }).count(), 1, 'the reload added no second endpoint');
    assert.ok(!(await page.content()).includes(secret));
    await shot('webhooks');
  });

  it('the overview, settings and account pages render; the settings form saves', async () => {
    // A live order (a key the operator made): the overview counts live orders only, and charts them.
    const liveKey = (await t.admin('POST', `/admin/v1/partners/${partnerId}/keys`)).json<{ api_key: string }>().api_key;
    assert.equal((await api('POST', '/api/v1/partner/orders', liveKey, ORDER)).status, 201);
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('button', { name: 'Switch to live mode' }).click();
    assert.equal(await page.getByRole('note').count(), 0, 'no banner in live mode');
    await page.getByRole('img', { name: /Orders created and completed per day/ }).waitFor();
    const bars = await page.locator('svg.chart rect.created').evaluateAll((rects) => rects.map((rect) => Number((rect as { getAttribute(name: string): string | null }).getAttribute('height'))));
    assert.equal(bars.length, 30);
    assert.equal(bars.filter((height) => height > 0).length, 1, "today's bar");
    await page.getByRole('link', { name: 'waiting deposit' }).waitFor();
    await shot('overview-with-orders');
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel(/Markup in basis points/).fill('75');
    await page.getByRole('button', { name: 'Save markup' }).click();
    await page.getByRole('status').filter({ hasText: 'now 75 basis points' }).waitFor();
    await shot('settings');
    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    await page.getByRole('img', { name: /QR code/ }).waitFor();
    await shot('two-factor-enrol');
    await page.getByRole('link', { name: 'Account' }).click();
    // This browser's session is listed and marked, with its User-Agent (ASVS 3.3.4).
    const current = page.locator('table.sessions tr.current');
    await current.getByText('This session').waitFor();
    assert.match(await current.innerText(), /Chrome/);
    await shot('account');
    await page.getByRole('link', { name: 'Overview' }).click();
    // Phone width: nothing overflows sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    for (const url of ['/cabinet', '/cabinet/orders?sandbox=1', `/cabinet/orders/${orderId}`, '/cabinet/keys', '/cabinet/webhooks', endpointPath, '/cabinet/settings', '/cabinet/account']) {
      await page.goto(`${origin}${url}`);
      // Expressions run in the page (this file has no DOM types).
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      const wide = await page.evaluate<string[]>(
        `[...document.querySelectorAll('body *')]
          .filter((element) => element.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
          .map((element) => element.tagName.toLowerCase() + '.' + element.className)
          .slice(0, 5)`,
      );
      assert.ok(overflow <= 0, `${url} scrolls sideways by ${overflow}px at 390px: ${wide.join(', ')}`);
      // phone-overview, phone-orders, phone-order, phone-keys, phone-webhooks, phone-webhook, …
      const name = url === '/cabinet' ? 'overview' : url === endpointPath ? 'webhook' : url === `/cabinet/orders/${orderId}` ? 'order' : new URL(url, origin).pathname.split('/')[2]!;
      await shot(`phone-${name}`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('with JavaScript off, every page reads and a key is still created and shown once', async () => {
    const plain = watch(await context.newPage());
    try {
      // What a browser with JavaScript turned off does (Playwright's javaScriptEnabled: false is this call).
      await (await context.newCDPSession(plain)).send('Emulation.setScriptExecutionDisabled', { value: true });
      const pages: Array<[string, string]> = [
        ['/cabinet', 'Overview'],
        ['/cabinet/orders?sandbox=1', 'Orders'],
        [`/cabinet/orders/${orderId}`, 'Order '],
        ['/cabinet/keys', 'API keys'],
        ['/cabinet/webhooks', 'Webhooks'],
        [endpointPath, 'Webhook endpoint'],
        ['/cabinet/settings', 'Settings'],
        ['/cabinet/account', 'Account'],
      ];
      for (const [url, heading] of pages) {
        const res = await plain.goto(`${origin}${url}`);
        assert.equal(res?.status(), 200, url);
        await plain.getByRole('heading', { level: 1, name: heading }).waitFor();
      }
      // The sandbox order is listed, and its page holds the timeline and the QR code.
      await plain.goto(`${origin}/cabinet/orders?sandbox=1`);
      await plain.getByRole('link', { name: orderShortId }).click();
      await plain.getByRole('heading', { name: 'Timeline' }).waitFor();
      assert.equal(await plain.getByRole('img', { name: /QR code of the deposit/ }).count(), 0, 'no QR code once the deposit came');
      await plain.goto(`${origin}/cabinet/keys?mode=test`);
      await plain.getByLabel('Label').fill('no script');
      await plain.getByRole('button', { name: 'Create key' }).click();
      const key = await plain.getByLabel('API key').inputValue();
      assert.match(key, /^pk_test_[a-z0-9]+\.[A-Za-z0-9_-]{43}$/);
      // The copy button needs the script: without it the button stays hidden and the field is there to select.
      assert.equal(await plain.getByRole('button', { name: 'Copy key' }).count(), 0);
      await shot('no-script-key-created', plain);
      await plain.reload();
      assert.ok(!(await plain.content()).includes(key.split('.')[1]!), 'the key is not shown again with JavaScript off either');
      await plain.getByRole('button', { name: 'Revoke key no script' }).click();
      await plain.getByText('The key is revoked').waitFor();
    } finally {
      await plain.close();
    }
  });

  it('a form without its CSRF token is refused', async () => {
    await page.goto(`${origin}/cabinet/settings`);
    await page.locator('input[name="_csrf"]').evaluateAll((inputs) => inputs.forEach((input) => (input as { remove(): void }).remove()));
    await page.getByLabel(/Markup in basis points/).fill('90');
    await page.getByRole('button', { name: 'Save markup' }).click();
    await page.getByText('did not come from this cabinet').waitFor();
    await shot('csrf-refused');
    const partner = await t.admin('GET', `/admin/v1/partners/${partnerId}`);
    assert.equal(partner.json<{ markup_bps: number }>().markup_bps, 75);
  });

  it('revoking the key makes the API answer 401', async () => {
    await page.goto(`${origin}/cabinet/keys?mode=test`);
    await page.getByRole('button', { name: 'Revoke key browser test' }).click();
    await page.getByText('The key is revoked').waitFor();
    assert.equal((await api('GET', `/api/v1/partner/orders/${orderId}`, apiKey)).status, 401);
  });

  it('the session expires after 30 idle minutes', async () => {
    clock.advance(SESSION_IDLE_MS);
    await page.goto(`${origin}/cabinet/orders`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/cabinet/login');
  });

  it('sign-in is throttled after 5 failures for the account', async () => {
    await context.clearCookies();
    for (let i = 0; i < 5; i++) {
      await page.goto(`${origin}/cabinet/login`);
      await page.getByLabel('Email').fill(EMAIL);
      await page.getByLabel('Password').fill(`wrong guess ${i}`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').filter({ hasText: 'Wrong email or password.' }).waitFor();
    }
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Too many sign-in attempts' }).waitFor();
    await shot('login-throttled');
    clock.advance(61_000);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  });

  it('deleting an endpoint asks first; an unknown cabinet address is a cabinet page', async () => {
    await page.goto(`${origin}${endpointPath}`);
    const confirmButton = page.getByRole('button', { name: 'Yes, delete the endpoint' });
    assert.equal(await confirmButton.isVisible(), false, 'the confirmation is closed');
    await page.getByText('Delete endpoint…').click();
    await page.getByText('This cannot be undone').waitFor();
    await shot('webhook-delete-confirm');
    await confirmButton.click();
    await page.getByText('The endpoint is deleted.').waitFor();
    assert.equal(new URL(page.url()).pathname, '/cabinet/webhooks');
    const missing = await page.goto(`${origin}/cabinet/no-such-page`);
    assert.equal(missing?.status(), 404);
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    await page.getByRole('link', { name: 'Back to the cabinet' }).waitFor();
    await shot('not-found');
  });

  it('no page broke the Content-Security-Policy or threw', () => {
    assert.deepEqual(problems, []);
  });
});
