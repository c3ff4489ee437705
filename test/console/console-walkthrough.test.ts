// test-engines: one (scripts/run-tests.ts): what is tested is the browser path; the routes run on both engines in test/console/console-admin-pages.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { Decimal } from '../../src/domain/money.js';
import { CabinetClient } from '../helpers/cabinet-client.js';
import { chromiumSkip } from '../helpers/requirements.js';
import { advance, BTC_CONFIRMATIONS, createOrder, depositAndRun, fixedQuote, setConfirmations, shortFixedOrder, simulateDeposit, startHarness, storedOrder, type Harness, type OrderJson } from '../lifecycle/lifecycle-helpers.js';
import { assertAxeClean, firstSignIn, noticeText, openConsoleBrowser, type ConsoleBrowser } from './console-browser-session.js';
import { CONSOLE_PASSWORD, orderWithFailedExchange } from './console-helpers.js';

const EMAIL = 'newcomer@ops.example';
const NAME = 'Nadia Newcomer';
const TOKEN = '0x52908400098527886E0F7030069857D2E4169EE7';

/**
 * A new operator, in the browser only: sets a password, enrols two-factor, onboards a partner
 * (creates it, issues a key, invites a person), adds a token, resolves a held refund, a refund
 * waiting for an address and an order stuck in exchanging (continued) from the attention queue,
 * disables a webhook endpoint that is failing, finds an order by each of its identifiers (ids, address, txid, external id, partner, a cabinet
 * person's email), and then reads every one of those actions under their name in the audit log.
 * Every new page passes axe-core (no serious or critical violation) and fits a phone's width.
 */
describe('a new operator walks through the console in Chromium', { skip: chromiumSkip() }, () => {
  let h: Harness;
  let origin: string;
  let browser: ConsoleBrowser | undefined;
  let page: Page;
  let noAddress: OrderJson;
  let held: OrderJson;
  let done: OrderJson;
  let stuck: OrderJson;

  before(async () => {
    h = await startHarness({ REFUND_HOLD_MINUTES: '60' });
    // A short deposit to an order without a refund address: after its hold it waits for one.
    const quote = await fixedQuote(h, '0.5');
    noAddress = await createOrder(h, { rate_type: 'fixed', quote_id: quote, refund_address: null });
    await simulateDeposit(h, noAddress.id, { amount: new Decimal(noAddress.amount_from_expected).times('0.9').toFixed() });
    await h.t.runtime.worker.tick();
    await setConfirmations(h, noAddress.id, BTC_CONFIRMATIONS);
    await h.t.runtime.worker.tick();
    await advance(h, 61 * 60_000);
    held = await shortFixedOrder(h);
    // A completed order with an external id and a payout txid, found by either.
    done = await createOrder(h, { external_id: 'ticket-4711' });
    done = await depositAndRun(h, done.id, 'completed');
    // A cabinet person of the partner, found by their email.
    const invited = await h.t.admin('POST', `/admin/v1/partners/${h.partner.id}/invitations`, { email: 'desk@testpartner.example' });
    assert.equal(invited.statusCode, 201, invited.body);
    const link = new URL(invited.json<{ url: string }>().url).pathname;
    h.t.secrets.add(link.split('/').pop() ?? '', 'cabinet invitation');
    const desk = new CabinetClient(h.t, '198.51.100.81');
    await desk.get(link);
    assert.equal((await desk.post(link, { password: 'amber harbour quiet lantern', confirm: 'amber harbour quiet lantern' })).statusCode, 303);
    // An exchange that failed once and has not moved for 31 minutes: stuck (the held refund's hour is not over).
    stuck = await orderWithFailedExchange(h);
    await advance(h, 31 * 60_000);
    // A partner's endpoint that nothing answers: its first delivery fails, and it is failing.
    const down = await h.t.runtime.webhooks.create({ partnerId: h.partner.id, mode: 'live' }, { url: 'http://127.0.0.1:9/down', description: 'down' });
    await h.t.runtime.webhooks.ping(down.endpoint.id, h.partner.id);
    await h.t.app.runtime.webhookWorker.drain();
    origin = await h.t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await openConsoleBrowser();
    page = browser.page;
  });
  after(async () => {
    await browser?.close();
    await h.t.close();
  });

  const axeClean = (where: string): Promise<void> => assertAxeClean(page, where);
  const notice = (): Promise<string> => noticeText(page);

  it('signs in for the first time with two-factor', async () => {
    const invited = await h.t.admin('POST', '/admin/v1/operators', { email: EMAIL, role: 'admin', name: NAME });
    const url = new URL(invited.json<{ url: string }>().url);
    h.t.secrets.add(url.pathname.split('/').pop() ?? '', 'console invitation');
    await firstSignIn(page, origin, url.pathname, EMAIL, CONSOLE_PASSWORD, h.clock.now());
  });

  it('onboards a partner: creates it, issues a key, invites a person', async () => {
    await page.getByRole('link', { name: 'Partners' }).click();
    await axeClean('partners');
    await page.getByLabel('Name').fill('Walkthrough Swap');
    await page.getByLabel(/Markup/).fill('35');
    await page.getByRole('button', { name: 'Create partner' }).click();
    assert.match(await notice(), /The partner is created/);
    await axeClean('partner');
    await page.getByRole('button', { name: 'Issue a key' }).click();
    const key = await page.locator('#key-value').inputValue();
    assert.match(key, /^pk_/);
    h.t.secrets.add(key, 'partner key shown in the browser');
    await page.getByLabel('Email of the person to invite').fill('owner@walkthrough.example');
    await page.getByRole('button', { name: 'Invite to the cabinet' }).click();
    const link = await page.locator('#invitation-link').inputValue();
    assert.match(link, /\/cabinet\//);
    h.t.secrets.add(new URL(link).pathname.split('/').pop() ?? '', 'cabinet invitation shown in the browser');
  });

  it('adds a token to the catalog', async () => {
    await page.getByRole('link', { name: 'Catalog' }).click();
    await axeClean('catalog');
    await page.getByLabel('Coin (ticker)').fill('WLK');
    await page.getByLabel('Network', { exact: true }).fill('ERC20');
    await page.getByLabel('Chain', { exact: true }).selectOption('ETH');
    await page.getByLabel('Name').fill('Walk Token');
    await page.getByLabel('Decimals').fill('6');
    await page.getByLabel(/Token contract/).fill(TOKEN);
    await page.getByLabel('Minimum amount').fill('5');
    await page.getByLabel('Maximum amount').fill('50000');
    await page.getByRole('button', { name: 'Add to the catalog' }).click();
    assert.match(await notice(), /It is in the catalog/);
    await axeClean('catalog row');
    assert.equal(h.t.runtime.catalog.all().find((row) => row.coin === 'WLK')?.token_contract, TOKEN);
  });

  it('resolves a held refund and a refund waiting for an address from the attention queue', async () => {
    await page.getByRole('link', { name: 'Attention' }).click();
    await page.getByRole('button', { name: `Continue ${held.short_id}` }).click();
    assert.match(await notice(), /The order continues/);
    await page.getByLabel(`Refund address of ${noAddress.short_id}`).fill('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4');
    await page.getByRole('button', { name: `Set refund address of ${noAddress.short_id}` }).click();
    assert.match(await notice(), /The refund address is set/);
  });

  it('continues an order stuck in exchanging from the attention queue, by keyboard alone', async () => {
    await page.goto(`${origin}/console`);
    await page.getByRole('heading', { name: /Stuck in exchanging or sending \(1\)/ }).waitFor();
    await axeClean('attention with a stuck order');
    // Tab to the button as a keyboard user does, and press it.
    let focused = false;
    for (let i = 0; i < 80 && !focused; i++) {
      await page.keyboard.press('Tab');
      focused = (await page.evaluate<string>('document.activeElement?.textContent ?? ""')) === `Continue ${stuck.short_id}`;
    }
    assert.ok(focused, 'the continue button is reached by Tab');
    await page.keyboard.press('Enter');
    assert.match(await notice(), /The order continues: its step runs again/);
    // The worker's next passes run the exchange and the payout: the order leaves the queue.
    await h.t.runtime.worker.tick();
    await h.t.runtime.worker.tick();
    assert.equal((await storedOrder(h, stuck.id)).status, 'completed');
    await page.goto(`${origin}/console`);
    assert.match(await page.locator('main').innerText(), /No order is stuck/);
  });

  it('disables a failing webhook endpoint from the attention queue: it leaves the queue', async () => {
    await page.goto(`${origin}/console`);
    await page.getByRole('button', { name: 'Disable endpoint of Test Partner' }).click();
    assert.match(await notice(), /The webhook endpoint is disabled/);
    await page.goto(`${origin}/console`);
    assert.match(await page.locator('main').innerText(), /No webhook endpoint is failing/);
  });

  it('finds an order by id, short id (any case, with or without prefix), address, txid, external id, partner and a cabinet person’s email', async () => {
    const bare = held.short_id.split('-')[1]!;
    const searches: [string, OrderJson][] = [
      ...[held.id, held.short_id, bare.toLowerCase(), bare, held.deposit_address as string, 'Test Partner', 'desk@testpartner.example'].map((term): [string, OrderJson] => [term, held]),
      [done.payout_txid as string, done],
      ['ticket-4711', done],
    ];
    assert.ok(typeof done.payout_txid === 'string' && done.payout_txid !== '', JSON.stringify(done));
    for (const [term, order] of searches) {
      await page.goto(`${origin}/console`);
      await page.getByLabel('Find an order').fill(term);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL(/\/console\/orders\?q=/);
      assert.ok((await page.locator(`a[href="/console/orders/${order.id}"]`).count()) > 0, term);
    }
  });

  it('the audit log shows every action under the person’s name; every new page fits a phone', async () => {
    await page.goto(`${origin}/console/audit?actor=${encodeURIComponent(`person:${EMAIL}`)}`);
    await axeClean('audit');
    const text = await page.locator('main').innerText();
    for (const action of [
      'POST /console/partners',
      'POST /console/partners/:id/keys',
      'POST /console/partners/:id/people',
      'POST /console/catalog',
      'POST /console/orders/:id/continue',
      'POST /console/orders/:id/refund-address',
      'POST /console/orders/:id/resume',
      'POST /console/webhooks/:id/disable',
    ]) {
      assert.match(text, new RegExp(`${NAME} person:${EMAIL.replace('.', '\\.')}\\s+${action.replace(/\//g, '\\/')}\\s`), action);
    }
    for (const pathname of ['/console/prices', '/console/pools', '/console/health', '/console/treasury']) {
      await page.goto(`${origin}${pathname}`);
      await axeClean(pathname);
    }
    await page.setViewportSize({ width: 375, height: 800 });
    for (const pathname of ['/console', '/console/partners', '/console/catalog', '/console/prices', '/console/pools', '/console/health', '/console/treasury']) {
      await page.goto(`${origin}${pathname}`);
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      assert.ok(overflow <= 1, `${pathname} is ${overflow} px wider than the screen`);
    }
    assert.deepEqual(browser?.problems, []);
  });
});
