import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runAdminCli, spawnAdminCli } from '../helpers/admin-cli.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

/** A port nothing listens on: bound once by the OS, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('admin CLI', () => {
  let t: TestApp;
  let address: string;
  /** An empty DATA_DIR, so a developer's ./data never answers in place of the test app. */
  let emptyDataDir: string;
  const outputs: string[] = [];

  /** The CLI in this process, with `env` (and an empty DATA_DIR) as its whole environment. */
  const cli = (args: string[], env: Record<string, string>) => runAdminCli(args, { DATA_DIR: emptyDataDir, ...env }, outputs);
  const admin = (...args: string[]) => cli(args, { ADMIN_API_URL: address, ADMIN_TOKEN: t.adminToken });

  async function adminJson<T>(...args: string[]): Promise<T> {
    const run = await admin(...args, '--json');
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout) as T;
  }

  const account = (apiKey: string) =>
    fetch(`${address}/api/v1/partner/account`, { headers: { authorization: `Bearer ${apiKey}` } });

  before(async () => {
    t = await buildTestApp();
    address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    emptyDataDir = mkdtempSync(path.join(tmpdir(), 'epa-cli-empty-'));
  });
  after(async () => {
    await t.close();
    rmSync(emptyDataDir, { recursive: true, force: true });
  });

  it('runs a partner through create, key, suspend, activate and revoke', async () => {
    const partner = await adminJson<{ id: string; name: string; status: string; markup_bps: number }>(
      'partners', 'create', '--name', 'Acme', '--markup-bps', '25',
    );
    assert.equal(partner.name, 'Acme');
    assert.equal(partner.status, 'active');
    assert.equal(partner.markup_bps, 25);

    const key = await adminJson<{ key_id: string; api_key: string }>('keys', 'create', partner.id);
    assert.match(key.api_key, /^pk_[a-z0-9]{20}\.[A-Za-z0-9_-]{43}$/);
    assert.equal(key.api_key.split('.')[0], key.key_id);
    const ok = await account(key.api_key);
    assert.equal(ok.status, 200);
    assert.equal(((await ok.json()) as { id: string }).id, partner.id);

    const suspended = await admin('partners', 'suspend', partner.id);
    assert.equal(suspended.code, 0, suspended.stderr);
    assert.match(suspended.stdout, /is now suspended/);
    assert.equal((await account(key.api_key)).status, 403);

    const activated = await adminJson<{ status: string }>('partners', 'activate', partner.id);
    assert.equal(activated.status, 'active');
    assert.equal((await account(key.api_key)).status, 200);

    const listed = await admin('keys', 'list', partner.id);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`${key.key_id}\\s+active`));
    assert.ok(!listed.stdout.includes(key.api_key), 'keys list never shows a secret');

    const revoked = await admin('keys', 'revoke', key.key_id);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.equal((await account(key.api_key)).status, 401);
  });

  it('prints humans a key with the warning that it is shown once', async () => {
    const { id } = await adminJson<{ id: string }>('partners', 'create', '--name', 'Human');
    const run = await admin('keys', 'create', id);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /pk_[a-z0-9]{20}\.[A-Za-z0-9_-]{43}/);
    assert.match(run.stdout, /only time the full key is shown/);
  });

  it('creates a sandbox key with --sandbox, and keys list tells it from a live one', async () => {
    const { id } = await adminJson<{ id: string }>('partners', 'create', '--name', 'Sandbox Tester');
    const live = await adminJson<{ key_id: string; sandbox: boolean }>('keys', 'create', id);
    assert.equal(live.sandbox, false);
    const run = await admin('keys', 'create', id, '--sandbox');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^Sandbox API key for partner /);
    const sandbox = /(pk_test_[a-z0-9]{20})\.[A-Za-z0-9_-]{43}/.exec(run.stdout);
    assert.ok(sandbox?.[1] !== undefined, run.stdout);
    assert.match(run.stdout, /simulator only/);
    const listed = await admin('keys', 'list', id);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^KEY_ID\s+STATUS\s+MODE/);
    assert.match(listed.stdout, new RegExp(`${sandbox[1]}\\s+active\\s+sandbox`));
    assert.match(listed.stdout, new RegExp(`${live.key_id}\\s+active\\s+live\\s+full`));
    // docs/contract.md §10.9: --client makes a key to ship inside an app.
    const client = await admin('keys', 'create', id, '--client');
    assert.equal(client.code, 0, client.stderr);
    assert.match(client.stdout, /^Client key for partner /);
    const clientId = /(pk_client_[a-z0-9]{20})\.[A-Za-z0-9_-]{43}/.exec(client.stdout)?.[1];
    assert.ok(clientId !== undefined, client.stdout);
    assert.match(client.stdout, /403 scope/);
    const again = await admin('keys', 'list', id);
    assert.match(again.stdout, new RegExp(`${clientId}\\s+active\\s+live\\s+client`));
  });

  it('lists and shows partners in aligned human output', async () => {
    const { id } = await adminJson<{ id: string }>('partners', 'create', '--name', 'Columns Ltd', '--rate-limit', '42');
    const list = await admin('partners', 'list');
    assert.equal(list.code, 0, list.stderr);
    const lines = list.stdout.trimEnd().split('\n');
    assert.match(lines[0] ?? '', /^ID\s+NAME\s+STATUS/);
    const row = lines.find((line) => line.startsWith(id));
    assert.ok(row !== undefined, list.stdout);
    assert.equal(row.indexOf('Columns Ltd'), lines[0]?.indexOf('NAME'));

    const updated = await adminJson<{ rate_limit_per_minute: number }>('partners', 'update', id, '--rate-limit', '7');
    assert.equal(updated.rate_limit_per_minute, 7);
    const shown = await admin('partners', 'show', id);
    assert.match(shown.stdout, /rate_limit_per_minute\s+7\n/);
  });

  it('lists currencies and updates one by COIN:NETWORK with an exact amount', async () => {
    const list = await admin('currencies', 'list');
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^BTC:BTC\s+Bitcoin/m);

    const run = await admin('currencies', 'update', 'BTC:BTC', '--min-amount', '0.0003', '--json');
    assert.equal(run.code, 0, run.stderr);
    // The number as the API wrote it, not a float's rendering of it.
    assert.match(run.stdout, /"min_amount":0\.0003[,}]/);
    const btc = JSON.parse(run.stdout) as { coin: string; min_amount: number };
    assert.equal(btc.coin, 'BTC');
    assert.equal(btc.min_amount, 0.0003);
  });

  it('reports the API detail with exit 1', async () => {
    const wrongToken = await cli(['partners', 'list'], { ADMIN_API_URL: address, ADMIN_TOKEN: 'x'.repeat(40) });
    assert.equal(wrongToken.code, 1);
    assert.match(wrongToken.stderr, /missing or invalid admin token/);
    assert.match(wrongToken.stderr, /from ADMIN_TOKEN/);
    assert.equal(wrongToken.stdout, '');

    const tooDetailed = await admin('currencies', 'update', 'BTC:BTC', '--min-amount', '0.000000001');
    assert.equal(tooDetailed.code, 1);
    assert.match(tooDetailed.stderr, /more than 8 decimals/);

    const unknownCurrency = await admin('currencies', 'update', 'NOPE:NOPE', '--active', 'false');
    assert.equal(unknownCurrency.code, 1);
    assert.match(unknownCurrency.stderr, /no currency NOPE:NOPE/);
  });

  it('answers usage mistakes with exit 2 and the usage text', async () => {
    const unknown = await admin('frobnicate', 'now');
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command "frobnicate now"/);
    assert.match(unknown.stderr, /Usage: npm run admin/);

    const mistakes = [
      ['partners', 'create'],
      ['partners', 'show'],
      ['partners', 'update', '00000000-0000-0000-0000-000000000000'],
      ['partners', 'list', '--name', 'x'],
      ['currencies', 'update', 'BTC:BTC', '--active', 'maybe'],
      ['partners', 'list', '--bogus'],
    ];
    const runs = await Promise.all(mistakes.map((args) => admin(...args)));
    runs.forEach((run, i) => {
      assert.equal(run.code, 2, `${mistakes[i]?.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, /Usage: npm run admin/);
    });

    const help = await cli(['--help'], {});
    assert.equal(help.code, 0);
    assert.match(help.stdout, /partners create --name <name>/);
  });

  it('names the URL it tried when the API is unreachable', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const run = await cli(['partners', 'list'], { ADMIN_API_URL: url, ADMIN_TOKEN: t.adminToken });
    assert.equal(run.code, 1);
    assert.ok(run.stderr.includes(`cannot reach the API at ${url}`), run.stderr);
    assert.match(run.stderr, /is the server running\? start it with npm start/);
  });

  it('finds the API and the token in DATA_DIR, as npm start leaves them', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'epa-cli-data-'));
    try {
      writeFileSync(path.join(dataDir, 'api-url'), `${address}\n`);
      writeFileSync(path.join(dataDir, 'admin-token'), `${t.adminToken}\n`);
      const run = await cli(['partners', 'create', '--name', 'Discovered', '--json'], { DATA_DIR: dataDir });
      assert.equal(run.code, 0, run.stderr);
      assert.equal((JSON.parse(run.stdout) as { name: string }).name, 'Discovered');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('partners create and update take every partner field the API has: --max-open-orders (default: the server\'s)', async () => {
    const created = await adminJson<{ id: string; max_open_orders: number | null; rate_limit_per_minute: number }>(
      'partners', 'create', '--name', 'Capped', '--max-open-orders', '7', '--rate-limit', '90',
    );
    assert.equal(created.max_open_orders, 7);
    assert.equal(created.rate_limit_per_minute, 90);
    const raised = await adminJson<{ max_open_orders: number | null }>('partners', 'update', created.id, '--max-open-orders', '12');
    assert.equal(raised.max_open_orders, 12);
    const shown = await admin('partners', 'show', created.id);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /max_open_orders\s+12/);
    const listed = await admin('partners', 'list');
    assert.match(listed.stdout, /MAX_OPEN_ORDERS/);
    assert.match(listed.stdout, new RegExp(`${created.id}.*\\b12\\b`));
    const cleared = await adminJson<{ max_open_orders: number | null }>('partners', 'update', created.id, '--max-open-orders', 'default');
    assert.equal(cleared.max_open_orders, null);
    const bad = await admin('partners', 'update', created.id, '--max-open-orders', 'lots');
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /--max-open-orders must be a whole number or "default"/);
    const help = await cli(['--help'], {});
    assert.match(help.stdout, /partners create --name <name> .*--max-open-orders N/);
    assert.match(help.stdout, /partners update <partner-id> .*--max-open-orders N\|default/);
  });

  it('commissions report takes --from and --to as dates, as its help says, or as date-times', async () => {
    const byDate = await admin('commissions', 'report', '--from', '2020-01-01', '--to', '2020-02-01');
    assert.equal(byDate.code, 0, byDate.stderr);
    assert.match(byDate.stdout, /^commission owed from 2020-01-01T00:00:00\.000Z to 2020-02-01T00:00:00\.000Z: none$/m);
    const byTime = await admin('commissions', 'report', '--from', '2020-01-01T12:00:00+02:00', '--to', '2020-01-15T08:30Z');
    assert.equal(byTime.code, 0, byTime.stderr);
    assert.match(byTime.stdout, /^commission owed from 2020-01-01T10:00:00\.000Z to 2020-01-15T08:30:00\.000Z: none$/m);
    for (const bad of ['yesterday', '2020-13-01', '2020-02-30']) {
      const run = await admin('commissions', 'report', '--from', bad);
      assert.equal(run.code, 2, `${bad}: ${run.stderr}`);
      assert.match(run.stderr, /--from must be a date \(YYYY-MM-DD\) or an ISO 8601 date-time/);
    }
    const help = await cli(['--help'], {});
    assert.match(help.stdout, /commissions report \[--from DATE\] \[--to DATE\]/);
  });

  it('with no api-url in DATA_DIR, it goes to ADMIN_PORT (the operator listener), not the public PORT', async () => {
    const port = new URL(address).port;
    const run = await cli(['partners', 'list', '--json'], { ADMIN_PORT: port, PORT: String(await closedPort()), ADMIN_TOKEN: t.adminToken });
    assert.equal(run.code, 0, run.stderr);
    assert.ok(Array.isArray(JSON.parse(run.stdout)));
  });

  it('as a process: exit 0, 1 and 2, output on stdout and errors on stderr', async () => {
    const env = { DATA_DIR: emptyDataDir, ADMIN_API_URL: address, ADMIN_TOKEN: t.adminToken };
    const [created, failed, mistaken] = await Promise.all([
      spawnAdminCli(['partners', 'create', '--name', 'Spawned', '--json'], env, outputs),
      spawnAdminCli(['partners', 'show', '00000000-0000-0000-0000-000000000000'], env, outputs),
      spawnAdminCli(['frobnicate'], env, outputs),
    ]);
    assert.equal(created.code, 0, created.stderr);
    assert.equal((JSON.parse(created.stdout) as { name: string }).name, 'Spawned');
    assert.equal(created.stderr, '');
    assert.equal(failed.code, 1);
    assert.equal(failed.stdout, '');
    assert.match(failed.stderr, /^error: /);
    assert.equal(mistaken.code, 2);
    assert.equal(mistaken.stdout, '');
    assert.match(mistaken.stderr, /Usage: npm run admin/);
  });

  it('never prints the admin token', () => {
    assert.ok(outputs.length > 0);
    for (const output of outputs) assert.ok(!output.includes(t.adminToken));
  });
});
