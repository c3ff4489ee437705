// test-engines: one (scripts/run-tests.ts): the page's script in a browser is what is tested; the stream's engines are test/streams/order-stream.test.ts's.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { chromiumSkip, launchChromium } from '../helpers/requirements.js';
import { BTC_CONFIRMATIONS, createOrder, setConfirmations, simulateDeposit, startHarness, type Harness } from '../lifecycle/lifecycle-helpers.js';

/** Guards against a hang, not budgets (a browser on two busy cores is slow). */
const HANG_GUARD_MS = 60_000;

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + HANG_GUARD_MS;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail('not within the hang guard');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The status page (/status/{token}) in Chromium with JavaScript (docs/contract.md §10.11): it follows the
 * order's status stream and shows each move without being loaded again, under the service's CSP
 * with no console error; once the order is final it stops listening.
 */
describe('the status page follows the order live, in Chromium', { skip: chromiumSkip() }, () => {
  let h: Harness;
  let origin: string;
  let browser: Browser;
  before(async () => {
    h = await startHarness();
    origin = await h.t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await h.t.close();
  });

  it('shows each move as it happens, with no reload and no CSP error, and stops once final', async () => {
    const order = await createOrder(h);
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      // The browser's own guess at a favicon is not the page's.
      if (message.location().url.endsWith('/favicon.ico')) return;
      if (message.type() === 'error' || /Content.Security.Policy|Refused to/i.test(message.text())) problems.push(`console ${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    let loads = 0;
    page.on('load', () => loads++);
    await page.goto(`${origin}${String(order['status_url'])}`, { timeout: HANG_GUARD_MS });
    await page.getByRole('status').filter({ hasText: 'Waiting for your deposit' }).waitFor({ timeout: HANG_GUARD_MS });
    await page.getByText('This page updates itself as the order moves.').waitFor({ timeout: HANG_GUARD_MS });
    // The stream is open (its first event is the version the page shows) before the order moves.
    await until(() => h.t.runtime.orderStreams.size === 1);

    await simulateDeposit(h, order.id);
    await h.t.runtime.worker.tick();
    await page.getByRole('status').filter({ hasText: 'Deposit received, confirming' }).waitFor({ timeout: HANG_GUARD_MS });

    await setConfirmations(h, order.id, BTC_CONFIRMATIONS);
    await h.t.runtime.worker.tick();
    await h.t.runtime.worker.tick();
    await page.getByRole('status').filter({ hasText: 'Completed' }).waitFor({ timeout: HANG_GUARD_MS });
    assert.match(await page.title(), /Completed/);
    assert.equal(loads, 1, 'the page was never loaded again');
    // Final: the page dropped its stream attribute and closed the stream (no place held).
    assert.equal(await page.locator('main[data-stream]').count(), 0);
    await until(() => h.t.runtime.orderStreams.size === 0);
    assert.deepEqual(problems, [], `the browser reported: ${problems.join(' | ')}`);
    await page.close();
  });
});
