// test-engines: one (scripts/run-tests.ts): the README's receiver is what is tested; the server only sends it a delivery.
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../helpers/process/waits.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * Issue 27.9: the README's webhook receiver runs as written in a fresh `npm init -y` project
 * (a CommonJS project: the receiver is an ES module, so the README names it receiver.mjs), and
 * verifies a delivery the server really sent. `npm install standardwebhooks` is done from the
 * workspace's own copy of the package: nothing in a test may reach a registry.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const NPM_ENV = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', npm_config_offline: 'true' };

const run = (file: string, args: string[], cwd: string): Promise<string> =>
  new Promise((resolve, reject) => {
    execFile(file, args, { cwd, env: NPM_ENV, timeout: 120_000 }, (error, stdout, stderr) => (error === null ? resolve(stdout) : reject(new Error(`${file} ${args.join(' ')}: ${error.message}\n${stderr}`))));
  });

/** The README's receiver: the shell steps and the js block after "A receiver in a few lines". */
function readmeReceiver(): { shell: string; source: string } {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const match = /A receiver in a few lines[\s\S]*?```sh\n([\s\S]*?)```\s*```js\n([\s\S]*?)```/.exec(readme);
  assert.ok(match?.[1] !== undefined && match[2] !== undefined, 'the README has the receiver: a sh block, then a js block');
  return { shell: match[1], source: match[2] };
}

/** A port the system says is free now, for the receiver (its README reads PORT). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function listening(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    assert.equal(child.exitCode, null, `the receiver exited: ${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host: '127.0.0.1' }, () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    assert.ok(Date.now() < deadline, `the receiver never listened: ${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("the README's webhook receiver, in a fresh npm init -y project", () => {
  const project = mkdtempSync(path.join(tmpdir(), 'epa-receiver-'));
  let t: TestApp;
  let receiver: ChildProcess | undefined;
  before(async () => {
    t = await buildTestApp();
  });
  after(async () => {
    receiver?.kill();
    await t?.close();
    rmSync(project, { recursive: true, force: true });
  });

  it('runs as written and verifies the deliveries the server signs, refusing an altered one', async () => {
    const { shell, source } = readmeReceiver();
    assert.match(shell, /^npm init -y && npm install standardwebhooks$/m);
    const file = /node (\S+\.mjs)/.exec(shell)?.[1];
    assert.ok(file !== undefined, 'the README says which file to run');

    await run(NPM, ['init', '-y'], project);
    const installed = path.join(ROOT, 'node_modules', 'standardwebhooks');
    assert.ok(existsSync(installed), 'standardwebhooks is installed in the workspace');
    await run(NPM, ['install', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', installed], project);
    const made = JSON.parse(readFileSync(path.join(project, 'package.json'), 'utf8')) as { type?: string };
    assert.notEqual(made.type, 'module', 'npm init -y made a CommonJS project, as a reader gets');
    writeFileSync(path.join(project, file), source);

    const partner = await t.createPartner();
    const auth = { authorization: `Bearer ${partner.apiKey}` };
    const port = await freePort();
    const endpoint = await t.app.inject({ method: 'POST', url: '/api/v1/partner/webhooks', headers: auth, payload: { url: `http://127.0.0.1:${port}/hooks` } });
    assert.equal(endpoint.statusCode, 201, endpoint.body);
    const secret = endpoint.json<{ secret: string }>().secret;

    let output = '';
    receiver = spawn(process.execPath, [file], { cwd: project, env: { PATH: process.env.PATH, WEBHOOK_SECRET: secret, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
    receiver.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    receiver.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await listening(port, receiver, () => output);

    const order = await t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: auth,
      payload: { coin_from: 'BTC', network_from: 'BTC', coin_to: 'ETH', network_to: 'ETH', amount_from: 0.1, rate_type: 'float', recipient_address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94', refund_address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4' },
    });
    assert.equal(order.statusCode, 201, order.body);
    // A loaded machine may time the first attempt out before the receiver's first answer: then
    // the delivery is retried now, as a partner would from the cabinet (at most twice). What is
    // checked is that the README's receiver accepts the signed delivery, not the first attempt's timing.
    type Delivery = { id: string; event_id: string; status: string; status_code: number | null };
    let delivery: Delivery | undefined;
    const tried: string[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      await t.runtime.webhookWorker.drain();
      const deliveries = await t.app.inject({ method: 'GET', url: `/api/v1/partner/webhooks/${endpoint.json<{ id: string }>().id}/deliveries`, headers: auth });
      [delivery] = deliveries.json<{ deliveries: Delivery[] }>().deliveries;
      tried.push(JSON.stringify(delivery));
      if (delivery === undefined || delivery.status === 'delivered') break;
      await t.app.inject({ method: 'POST', url: `/api/v1/partner/webhooks/deliveries/${delivery.id}/retry`, headers: auth });
    }
    assert.equal(delivery?.status, 'delivered', `the receiver answered ${delivery?.status_code} (${tried.join(', ')}): ${output}`);
    assert.equal(delivery.status_code, 204);
    // What the README's receiver prints: the webhook-id to dedupe on, the type, the order's status.
    // It answers before its line has come through the pipe to this process (seen empty once on a
    // loaded machine, the delivery already 204): waited for, then asserted.
    const printed = new RegExp(`^${delivery.event_id} order\\.created waiting_deposit$`, 'm');
    await waitFor('the receiver to print the delivery', () => printed.test(output), { timeoutMs: 10_000 }).catch(() => undefined);
    assert.match(output, printed);

    const forged = await fetch(`http://127.0.0.1:${port}/hooks`, {
      method: 'POST',
      headers: { 'webhook-id': 'msg_forged', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}` },
      body: '{"type":"order.created","timestamp":"2026-01-01T00:00:00.000Z","data":{}}',
    });
    assert.equal(forged.status, 400);
  });
});
