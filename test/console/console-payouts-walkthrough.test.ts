// test-engines: postgres (scripts/run-tests.ts): the browser path, once, on the PostgreSQL pass, where the signer pays on litecoind.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { nodeNetworkAddress } from '../../src/chains/nodes/node-network-address.js';
import { createDemoXpubs } from '../../src/domain/deposit-addresses/index.js';
import { Decimal } from '../../src/domain/money.js';
import { BitcoinPayer } from '../../src/signer/bitcoin/bitcoin-payer.js';
import { HotWallet } from '../../src/signer/hot-wallet.js';
import { newMnemonics } from '../../src/signer/key-file.js';
import { PayoutLoop } from '../../src/signer/payout-loop.js';
import { parseSignerPolicy, type SignerPolicy } from '../../src/signer/policy.js';
import { startLitecoind, type Litecoind } from '../helpers/litecoind-node.js';
import { recordingLogger } from '../helpers/recording-logger.js';
import { chromiumSkip, litecoindSkip } from '../helpers/requirements.js';
import { ManualClock, type TestApp } from '../helpers/test-app.js';
import { testEngine } from '../helpers/test-database.js';
import { buildPayoutsTestApp, fundLitecoinFloat, standInReading } from '../signer/payouts-test-app.js';
import { assertAxeClean, firstSignIn, noticeText, openConsoleBrowser, type ConsoleBrowser } from './console-browser-session.js';
import { CONSOLE_PASSWORD } from './console-helpers.js';

const production = testEngine() !== 'postgres' ? 'real payouts need DATABASE_URL (PostgreSQL): runs on the PostgreSQL pass' : false;
const EMAIL = 'fiona@ops.example';
const NAME = 'Fiona Finance';
const SIGNER_FOLLOW_MS = 2000;
const BTC_CONFIRMATIONS = 2;
const LTC_CONFIRMATIONS = 6;

/**
 * A person of the finance role, in the browser only, resolves what the signer leaves to the
 * operator (set up as test/signer/litecoind-payouts.test.ts sets up real LTC payouts on
 * litecoind): a refund the signer's policy refused, shown in the attention queue as a failed
 * payout and resolved by failing its order, and a payout above the approval threshold,
 * approved from the attention queue and then paid. Both actions are in the audit log under the
 * person's name; the pages pass axe-core.
 */
describe('the signer’s failed and waiting payouts resolved in the console, in Chromium', { skip: production || litecoindSkip() || chromiumSkip() }, () => {
  let ltc: Litecoind;
  let t: TestApp;
  let apiKey: string;
  let origin: string;
  let browser: ConsoleBrowser | undefined;
  let page: Page;
  const clock = new ManualClock();
  const hot = new HotWallet(newMnemonics());
  const logs: string[] = [];
  const policy = parseSignerPolicy({ SIGNER_MAX_PAYOUT_LTC: '50', SIGNER_MAX_DAILY_LTC: '1000', SIGNER_APPROVAL_ABOVE_LTC: '0.001' });
  let refundOrder: { id: string; short_id: string };
  let payoutOrder: { id: string; short_id: string };

  const makeLoop = async (limits: SignerPolicy = policy): Promise<PayoutLoop> => {
    const payer = await BitcoinPayer.create('LTC', hot.account('LTC'), ltc.rpcUrl, {
      fees: { min: new Decimal(1), max: new Decimal(100), targetBlocks: 6 },
      batchMax: 50,
      walletBirthday: 0,
      onBoundedFee: () => undefined,
    });
    await payer.start(t.db.handle.db);
    return new PayoutLoop(t.db.handle.db, [payer], limits, { batchIntervalMs: 0, confirmations: 1, intervalMs: 50 }, () => clock.now(), recordingLogger(logs), {});
  };

  const statusOf = async (id: string): Promise<string> =>
    (await t.db.handle.db.selectFrom('orders').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;

  /** Worker passes (the clock moved past each follow-up) until the order is in `status`. */
  const workUntil = async (id: string, status: string): Promise<void> => {
    for (let i = 0; i < 10; i++) {
      await t.runtime.worker.tick();
      if ((await statusOf(id)) === status) return;
      clock.advance(SIGNER_FOLLOW_MS);
      await t.runtime.prices.refresh();
    }
    assert.fail(`order ${id} is ${await statusOf(id)}, not ${status}\n${logs.slice(-5).join('\n')}`);
  };

  const payoutOf = (orderId: string, kind: 'payout' | 'refund') =>
    t.db.handle.db.selectFrom('payouts').selectAll().where('order_id', '=', orderId).where('kind', '=', kind).executeTakeFirstOrThrow();

  const order = async (payload: Record<string, unknown>): Promise<{ id: string; short_id: string; deposit_address: string }> => {
    await t.runtime.liquidity.refresh();
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/partner/orders', headers: { 'x-api-key': apiKey }, payload: { rate_type: 'float', ...payload } });
    assert.equal(res.statusCode, 201, res.body);
    return res.json<{ id: string; short_id: string; deposit_address: string }>();
  };

  before(async () => {
    ltc = await startLitecoind();
    t = await buildPayoutsTestApp(clock, {
      PAYOUT_SIGNER_CHAINS: 'LTC,BTC',
      DEPOSIT_XPUB_BTC: createDemoXpubs().bitcoin,
      DEPOSIT_XPUB_LTC: createDemoXpubs().litecoin,
      CHAIN_LTC_RPC_URL: ltc.rpcUrl,
    });
    ({ apiKey } = await t.createPartner());
    // The hot wallet's float, mined; a first pass publishes what it can pay.
    await fundLitecoinFloat(ltc, hot, ['100']);
    await (await makeLoop()).pass();
    // The LTC → BTC order needs a BTC reading: no BTC payer runs here, so this stands in for the signer's (as the signer's own LTC tests do).
    await standInReading(t, 'BTC', '1', clock.now());

    // A deposit below the minimum, mined on litecoind: refunded by the signer, whose policy refuses it (above its maximum).
    const refundTo = await ltc.recipient();
    const refunded = await order({ coin_from: 'LTC', network_from: 'LTC', coin_to: 'BTC', network_to: 'BTC', amount_from: '1', recipient_address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', refund_address: refundTo.mainnet });
    refundOrder = refunded;
    await t.runtime.worker.tick();
    await ltc.rpc('sendtoaddress', [nodeNetworkAddress('LTC', 'regtest', refunded.deposit_address), '0.0001']);
    await ltc.mine(LTC_CONFIRMATIONS);
    await workUntil(refunded.id, 'refunding');
    await (await makeLoop(parseSignerPolicy({ SIGNER_MAX_PAYOUT_LTC: '0.00001', SIGNER_MAX_DAILY_LTC: '1' }))).pass();
    assert.equal((await payoutOf(refunded.id, 'refund')).status, 'failed');
    await t.runtime.worker.tick();
    assert.equal(await statusOf(refunded.id), 'refunding', 'a refused refund leaves the order to the operator');

    // A BTC → LTC payout above SIGNER_APPROVAL_ABOVE_LTC: it waits for an operator.
    const to = await ltc.recipient();
    payoutOrder = await order({ coin_from: 'BTC', network_from: 'BTC', coin_to: 'LTC', network_to: 'LTC', amount_from: '0.01', recipient_address: to.mainnet });
    assert.equal((await t.admin('POST', `/admin/v1/simulator/orders/${payoutOrder.id}/deposit`, {})).statusCode, 200);
    assert.equal((await t.admin('POST', `/admin/v1/simulator/orders/${payoutOrder.id}/confirmations`, { count: BTC_CONFIRMATIONS })).statusCode, 200);
    await workUntil(payoutOrder.id, 'sending');
    await (await makeLoop()).pass();
    assert.equal((await payoutOf(payoutOrder.id, 'payout')).status, 'awaiting_approval');

    origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await openConsoleBrowser();
    page = browser.page;
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await ltc?.close();
  });

  const axeClean = (where: string): Promise<void> => assertAxeClean(page, where);
  const notice = (): Promise<string> => noticeText(page);

  it('a finance person signs in with two-factor', async () => {
    const invited = await t.admin('POST', '/admin/v1/operators', { email: EMAIL, role: 'finance', name: NAME });
    const url = new URL(invited.json<{ url: string }>().url);
    t.secrets.add(url.pathname.split('/').pop() ?? '', 'console invitation');
    await firstSignIn(page, origin, url.pathname, EMAIL, CONSOLE_PASSWORD, clock.now());
  });

  it('the refused refund is a failed payout in the attention queue; failing its order resolves it', async () => {
    await page.goto(`${origin}/console`);
    await page.getByRole('heading', { name: /Failed payouts \(1\)/ }).waitFor();
    assert.match(await page.locator('section[aria-labelledby="failed-payouts"]').innerText(), /refund of [0-9.]+ on LTC: policy: above SIGNER_MAX_PAYOUT_LTC/);
    await axeClean('attention with a failed payout and one awaiting approval');
    await page.getByRole('link', { name: `Open ${refundOrder.short_id} to fail or refund it` }).click();
    await page.waitForURL(`${origin}/console/orders/${refundOrder.id}`);
    await axeClean('order with a failed refund');
    await page.getByLabel('Reason').fill('refund refused by the signer policy; the partner settles it by hand');
    await page.getByRole('button', { name: 'Fail the order' }).click();
    assert.match(await notice(), /The order is failed/);
    assert.equal(await statusOf(refundOrder.id), 'failed');
    await page.goto(`${origin}/console`);
    await page.getByRole('heading', { name: /Failed payouts \(0\)/ }).waitFor();
  });

  it('the payout awaiting approval is approved from the attention queue, then paid', async () => {
    await page.getByRole('button', { name: `Approve payout of ${payoutOrder.short_id}` }).click();
    assert.match(await notice(), /The payout is approved/);
    const approved = await payoutOf(payoutOrder.id, 'payout');
    assert.equal(approved.status, 'requested');
    assert.equal(approved.approved_by, `person:${EMAIL}`);
    await page.getByRole('heading', { name: /Payouts awaiting approval \(0\)/ }).waitFor();
    const loop = await makeLoop();
    await loop.pass();
    await ltc.mine(1);
    await loop.pass();
    assert.equal((await payoutOf(payoutOrder.id, 'payout')).status, 'confirmed');
    await workUntil(payoutOrder.id, 'completed');
  });

  it('both actions are in the audit log under the person’s name', async () => {
    await page.goto(`${origin}/console/audit?actor=${encodeURIComponent(`person:${EMAIL}`)}`);
    await axeClean('audit');
    const text = await page.locator('main').innerText();
    for (const action of ['POST /console/orders/:id/fail', 'POST /console/payouts/:id/approve']) {
      assert.match(text, new RegExp(`${NAME} person:${EMAIL.replace('.', '\\.')}\\s+${action.replace(/\//g, '\\/')}\\s`), action);
    }
    assert.deepEqual(browser?.problems, []);
  });
});
