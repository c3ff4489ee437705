// test-engines: one (scripts/run-tests.ts): the server is only something to call; the package and bundle are what is tested.
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import type * as Sdk from '../src/index.js';
import { chromiumSkip, launchChromium } from '../../../test/helpers/requirements.js';
import { startServerForChildProcess, type ChildProcessServer } from './sdk-server.js';

/**
 * The SDK in a browser (issue 17: Node 20+, browsers and edge runtimes with fetch and Web
 * Crypto). Its source is bundled for the browser platform (esbuild fails on any Node built-in)
 * with its one dependency, and loaded as an ES module by Chromium into a page of the server's
 * own origin (the page itself is answered by the test, every /api/v1 request goes to the real
 * server). There, with the browser's fetch, crypto.subtle and crypto.randomUUID and no Node
 * global, it runs a replay-proof-signed sandbox order to completed with an amount of 19
 * significant digits, reads an AmountOutOfRangeError's limits, pages through the order list
 * and verifies a webhook delivery the `standardwebhooks` library signed.
 */

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const PAGE = '/sdk-browser-test/';
const ETH_ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const BTC_ADDRESS = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
/** 19 significant digits: a float keeps about 16. */
const AMOUNT = '1.234567890123456789';

describe('the SDK in a browser (Chromium): fetch and Web Crypto only', { skip: chromiumSkip() }, () => {
  let server: ChildProcessServer;
  let browser: Browser;
  before(async () => {
    server = await startServerForChildProcess();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.t.close();
  });

  it('bundles with no Node built-in, and runs a signed sandbox order to completed in the page', async () => {
    const bundle = await build({
      absWorkingDir: REPO_ROOT,
      entryPoints: ['packages/sdk/src/index.ts'],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(bundle.metafile.inputs);
    assert.deepEqual(
      // lossless-json wherever node_modules resolves to (a symlinked node_modules gives its real path).
      inputs.filter((input) => !input.startsWith('packages/sdk/src/') && !/(^|\/)node_modules\/lossless-json\//.test(input)),
      [],
      'the SDK and lossless-json are all the browser loads',
    );
    const code = bundle.outputFiles[0]?.text;
    assert.ok(code !== undefined);

    const origin = new URL(server.baseUrl).origin;
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      // Chromium logs each error answer; the one 422 is the AmountOutOfRangeError asked for below.
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    const signedPosts: Array<Record<string, string>> = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/v1/partner/orders') signedPosts.push(request.headers());
    });
    await page.route(`${origin}${PAGE}**`, async (route) => {
      const { pathname } = new URL(route.request().url());
      if (pathname === `${PAGE}sdk.js`) return route.fulfill({ status: 200, contentType: 'text/javascript', body: code });
      if (pathname === PAGE) {
        return route.fulfill({
          status: 200,
          contentType: 'text/html',
          body: `<!doctype html><title>SDK</title><script type="module">import * as sdk from '${PAGE}sdk.js'; globalThis.sdk = sdk;</script>`,
        });
      }
      return route.fulfill({ status: 404, body: '' });
    });
    await page.goto(`${origin}${PAGE}`);
    await page.waitForFunction(() => 'sdk' in globalThis, undefined, { timeout: 20_000 });
    assert.deepEqual(
      await page.evaluate(() => ({
        secure: (globalThis as { isSecureContext?: boolean }).isSecureContext,
        subtle: typeof globalThis.crypto?.subtle?.sign,
        node: typeof (globalThis as { process?: unknown }).process,
      })),
      { secure: true, subtle: 'function', node: 'undefined' },
      "the browser's Web Crypto, and no Node global",
    );

    // A delivery signed in Node by the reference library, for the page to verify.
    const secret = `whsec_${Buffer.from('a browser test webhook secret ..').toString('base64')}`;
    const signedAt = new Date();
    const body = `{"type":"order.status_changed","timestamp":"${signedAt.toISOString()}","data":{"order":{"id":"o1","amount_from_expected":${AMOUNT}},"previous_status":"sending"}}`;
    const webhook = {
      secret,
      body,
      now: signedAt.getTime(),
      headers: { 'webhook-id': 'msg_browser', 'webhook-timestamp': String(Math.floor(signedAt.getTime() / 1000)), 'webhook-signature': new Webhook(secret).sign('msg_browser', signedAt, body) },
    };

    const result = await server.workWhile(
      page.evaluate(
        async ({ baseUrl, apiKey, amount, eth, btc, webhook }) => {
          const { PartnerClient, AmountOutOfRangeError, verifyWebhook, WebhookVerificationError } = (globalThis as unknown as { sdk: typeof Sdk }).sdk;
          const client = new PartnerClient({ baseUrl, apiKey, signing: 'replay-proof' });
          const quote = await client.rates({ coin_from: 'ETH', coin_to: 'BTC', amount });
          let limits: Array<string | undefined> = [];
          try {
            await client.rates({ coin_from: 'BTC', coin_to: 'ETH', amount: '0.00000001' });
          } catch (error) {
            if (!(error instanceof AmountOutOfRangeError)) throw error;
            limits = [error.code, error.min_amount, error.max_amount];
          }
          const order = await client.createOrder({
            coin_from: 'ETH',
            network_from: 'ETH',
            coin_to: 'BTC',
            network_to: 'BTC',
            amount_from: amount,
            rate_type: 'float',
            recipient_address: btc,
            refund_address: eth,
          });
          await client.sandboxDeposit(order.id);
          const done = await client.waitForStatus(order.id, 'completed', { intervalMs: 200, timeoutMs: 60_000 });
          const listed: string[] = [];
          for await (const listedOrder of client.orders({ sandbox: true, limit: 1 })) listed.push(listedOrder.id);
          const event = await verifyWebhook(webhook.secret, webhook.headers, webhook.body, { now: webhook.now });
          const tampered = await verifyWebhook(webhook.secret, webhook.headers, webhook.body.replace('sending', 'failed'), { now: webhook.now }).then(
            () => 'accepted',
            (error: unknown) => (error instanceof WebhookVerificationError ? error.name : String(error)),
          );
          return {
            quoted: quote.amount_from,
            limits,
            id: order.id,
            ordered: order.amount_from_expected,
            status: done.status,
            received: done.amount_from_received,
            payout: done.payout_txid,
            listed,
            event: { type: event.type, amount: event.type === 'ping' ? undefined : event.data.order.amount_from_expected },
            tampered,
          };
        },
        { baseUrl: server.baseUrl, apiKey: server.sandboxKey, amount: AMOUNT, eth: ETH_ADDRESS, btc: BTC_ADDRESS, webhook },
      ),
    );

    assert.equal(result.quoted, AMOUNT, 'the quote keeps every digit');
    assert.equal(result.limits[0], 'amount_out_of_range');
    for (const limit of result.limits.slice(1)) assert.match(String(limit), /^\d+(\.\d+)?$/);
    assert.equal(result.ordered, AMOUNT);
    assert.equal(result.status, 'completed');
    assert.equal(result.received, AMOUNT, 'the simulated deposit of amount_from_expected, every digit');
    assert.equal(typeof result.payout, 'string');
    assert.deepEqual(result.listed, [result.id], 'the one sandbox order, through the iterator');
    assert.deepEqual(result.event, { type: 'order.status_changed', amount: AMOUNT });
    assert.equal(result.tampered, 'WebhookVerificationError');
    assert.equal(signedPosts.length, 1, 'one create');
    assert.match(signedPosts[0]?.['x-signature'] ?? '', /^[0-9a-f]{64}$/, 'signed in the page with crypto.subtle');
    assert.match(signedPosts[0]?.['x-timestamp'] ?? '', /^\d+$/);
    assert.match(signedPosts[0]?.['idempotency-key'] ?? '', /^[0-9a-f-]{36}$/, "crypto.randomUUID's key");
    assert.deepEqual(problems, ['console: Failed to load resource: the server responded with a status of 422 (Unprocessable Entity)'], 'no error but the 422 asked for');
    await page.close();
  });
});
