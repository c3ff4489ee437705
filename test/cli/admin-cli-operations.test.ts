import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { base58 } from '@scure/base';
import { batches, parseAddressFile } from '../../src/cli/admin-pools.js';
import { runAdminCli } from '../helpers/admin-cli.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

const RECIPIENT = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';

interface AdminOrder {
  id: string;
  status: string;
  status_reason: string | null;
  events: Array<{ from_status: string | null; to_status: string; reason: string | null }>;
}

describe('admin CLI operations: prices, simulator, orders, pools', () => {
  let t: TestApp;
  let address: string;
  /** Holds an empty DATA_DIR for the CLI and the pool files the tests write. */
  let workDir: string;
  const outputs: string[] = [];

  /** The CLI in this process, pointed at the test app, with an empty DATA_DIR. */
  const admin = (...args: string[]) =>
    runAdminCli(args, { DATA_DIR: workDir, ADMIN_API_URL: address, ADMIN_TOKEN: t.adminToken }, outputs);

  async function adminJson<T>(...args: string[]): Promise<T> {
    const run = await admin(...args, '--json');
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout) as T;
  }

  async function http<T>(method: string, url: string, token: string, body?: unknown): Promise<T> {
    const response = await fetch(`${address}${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    assert.ok(response.ok, `${method} ${url}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  }

  /** A fresh partner with a key, and a BTC→ETH order placed with that key. */
  async function placeOrder(): Promise<{ id: string; partnerId: string }> {
    const partner = await http<{ id: string }>('POST', '/admin/v1/partners', t.adminToken, { name: 'CLI Ops' });
    const key = await http<{ api_key: string }>('POST', `/admin/v1/partners/${partner.id}/keys`, t.adminToken);
    const order = await http<{ id: string; status: string }>('POST', '/api/v1/partner/orders', key.api_key, {
      coin_from: 'BTC',
      network_from: 'BTC',
      coin_to: 'ETH',
      network_to: 'ETH',
      amount_from: 0.1,
      rate_type: 'float',
      recipient_address: RECIPIENT,
    });
    assert.equal(order.status, 'waiting_deposit');
    return { id: order.id, partnerId: partner.id };
  }

  before(async () => {
    t = await buildTestApp({ env: { WORKER: 'off', SIMULATOR_AUTO: '0' } });
    address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    workDir = mkdtempSync(path.join(tmpdir(), 'epa-cli-ops-'));
  });
  after(async () => {
    await t.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('sets a static price exactly and lists it', async () => {
    const set = await adminJson<{ symbol: string; price_usd: number }>('prices', 'set', 'BTC', '70000');
    assert.equal(set.symbol, 'BTC');
    assert.equal(set.price_usd, 70000);

    const list = await adminJson<Array<{ symbol: string; static_price_usd: number | null }>>('prices', 'list');
    assert.equal(list.find((p) => p.symbol === 'BTC')?.static_price_usd, 70000);

    const human = await admin('prices', 'list');
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /^SYMBOL\s+STATIC_USD/);
    assert.match(human.stdout, /^BTC\s+70000\s/m);
  });

  it('drives an order through the simulator to completed and shows its trail', async () => {
    const { id, partnerId } = await placeOrder();

    const deposit = await adminJson<{ order_id: string; amount: number; confirmations: number; dropped: boolean }>(
      'simulator', 'deposit', id,
    );
    assert.equal(deposit.order_id, id);
    assert.equal(deposit.amount, 0.1);
    assert.equal(deposit.confirmations, 0);
    assert.equal(deposit.dropped, false);

    const confirm = await admin('simulator', 'confirm', id, '2');
    assert.equal(confirm.code, 0, confirm.stderr);
    assert.match(confirm.stdout, /confirmations 2/);

    await t.runtime.worker.tick();
    await t.runtime.worker.tick();

    const order = await adminJson<AdminOrder>('orders', 'show', id);
    assert.equal(order.status, 'completed');
    assert.ok(order.events.some((event) => event.to_status === 'completed'), JSON.stringify(order.events));

    const shown = await admin('orders', 'show', id);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /^status\s+completed$/m);
    assert.match(shown.stdout, /^Events\n\s*AT\s+FROM\s+TO\s+REASON/m);
    assert.match(shown.stdout, /\swaiting_deposit\s+confirming\s/);
    assert.match(shown.stdout, /\ssending\s+completed\s/);
    // Event data keeps its numbers as the API wrote them, not as parser objects.
    assert.ok(!shown.stdout.includes('isLosslessNumber'), shown.stdout);

    const completed = await adminJson<Array<{ id: string }>>('orders', 'list', '--status', 'completed', '--json');
    assert.ok(completed.some((o) => o.id === id));
    const mine = await adminJson<Array<{ id: string }>>('orders', 'list', '--partner', partnerId, '--limit', '5');
    assert.deepEqual(mine.map((o) => o.id), [id]);
    const table = await admin('orders', 'list', '--status', 'completed');
    assert.match(table.stdout, new RegExp(`^${id}\\s+\\S+\\s+completed\\s+BTC:BTC->ETH:ETH\\s`, 'm'));

    const again = await admin('simulator', 'deposit', id);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already has a simulated deposit/);
  });

  it('orders list --sandbox shows test orders only, --live live ones only, neither both', async () => {
    const { id: liveId, partnerId } = await placeOrder();
    const key = await http<{ api_key: string }>('POST', `/admin/v1/partners/${partnerId}/keys`, t.adminToken, { sandbox: true });
    const sandboxOrder = await http<{ id: string; sandbox: boolean }>('POST', '/api/v1/partner/orders', key.api_key, {
      coin_from: 'BTC', network_from: 'BTC', coin_to: 'ETH', network_to: 'ETH', amount_from: 0.1, rate_type: 'float', recipient_address: RECIPIENT,
    });
    assert.equal(sandboxOrder.sandbox, true);
    const ids = async (...flags: string[]) =>
      (await adminJson<Array<{ id: string; sandbox: boolean }>>('orders', 'list', '--partner', partnerId, ...flags)).map((o) => [o.id, o.sandbox]);
    assert.deepEqual(await ids('--sandbox'), [[sandboxOrder.id, true]]);
    assert.deepEqual(await ids('--live'), [[liveId, false]]);
    assert.deepEqual((await ids()).sort(), [[sandboxOrder.id, true], [liveId, false]].sort());
    const table = await admin('orders', 'list', '--partner', partnerId);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /\sCREATED_AT\s+SANDBOX$/m);
    assert.match(table.stdout, new RegExp(`^${sandboxOrder.id}\\s.*\\syes$`, 'm'));
    assert.match(table.stdout, new RegExp(`^${liveId}\\s.*\\sno$`, 'm'));
    const both = await admin('orders', 'list', '--sandbox', '--live');
    assert.equal(both.code, 2, both.stderr);
    assert.match(both.stderr, /--sandbox and --live exclude each other/);
  });

  it('fails a fresh order by hand with the reason recorded', async () => {
    const { id } = await placeOrder();
    const failed = await adminJson<{ id: string; status: string; status_reason: string }>(
      'orders', 'fail', id, '--reason', 'customer asked to stop',
    );
    assert.equal(failed.id, id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.status_reason, 'operator');

    const order = await adminJson<AdminOrder>('orders', 'show', id);
    assert.equal(order.status, 'failed');

    const twice = await admin('orders', 'fail', id, '--reason', 'again');
    assert.equal(twice.code, 1, twice.stderr);
  });

  it('drops a deposit and injects simulator faults', async () => {
    const { id } = await placeOrder();
    await adminJson('simulator', 'deposit', id, '--amount', '0.1', '--txid', 'ab'.repeat(32));
    const dropped = await adminJson<{ dropped: boolean; txid: string }>('simulator', 'drop', id);
    assert.equal(dropped.dropped, true);
    assert.equal(dropped.txid, 'ab'.repeat(32));

    const fault = await adminJson<{ step: string; count: number; permanent: boolean }>('simulator', 'fail-next', 'payout', '--permanent');
    assert.deepEqual(fault, { step: 'payout', count: 1, permanent: true });
    const human = await admin('simulator', 'fail-next', 'exchange', '--count', '0');
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /no exchange attempt is made to fail/);
    // Leaves the payout step as it was found for any later test.
    await adminJson('simulator', 'fail-next', 'payout', '--count', '0');
  });

  it('shows and loads the SOL address pool from a file', async () => {
    const before = await adminJson<{ chain: string; available: number }>('pools', 'show', 'SOL');
    assert.equal(before.chain, 'SOL');
    assert.ok(before.available > 0);

    const [first, second] = [base58.encode(randomBytes(32)), base58.encode(randomBytes(32))];
    const file = path.join(workDir, 'sol-addresses.txt');
    writeFileSync(file, `# SOL pool addresses\n${first}\n\n  ${second}  # cold wallet 2\n${first}\n`);
    const loaded = await adminJson<{ added: number; skipped: number; available: number }>('pools', 'load', 'SOL', file);
    assert.equal(loaded.added, 2);
    assert.equal(loaded.skipped, 1);
    assert.equal(loaded.available, before.available + 2);

    const human = await admin('pools', 'load', 'sol', file);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /added 0, skipped 3/);
    assert.match(human.stdout, new RegExp(`SOL pool: ${before.available + 2} available`));

    const bad = path.join(workDir, 'bad.txt');
    writeFileSync(bad, 'not-a-solana-address\n');
    const rejected = await admin('pools', 'load', 'SOL', bad);
    assert.equal(rejected.code, 1);
    assert.match(rejected.stderr, /not a valid SOL address/);
  });

  it('orders resume continues only an order stuck in exchanging or sending', async () => {
    const { id } = await placeOrder();
    const refused = await admin('orders', 'resume', id);
    assert.equal(refused.code, 1, refused.stdout);
    assert.match(refused.stderr, /continuing is for an order stuck in exchanging or sending; this one is waiting_deposit/);
  });

  it('sets and clears the SOL pool\'s low-pool alert threshold', async () => {
    const { available } = await adminJson<{ available: number }>('pools', 'show', 'SOL');
    const raised = await adminJson<{ low_at: number; low_at_default: boolean; low: boolean }>('pools', 'alert', 'sol', String(available + 1));
    assert.deepEqual(raised, { ...raised, low_at: available + 1, low_at_default: false, low: true });
    const human = await admin('pools', 'alert', 'SOL', 'default');
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, new RegExp(`SOL pool: ${available} available, \\d+ assigned; low below 100 \\(the default\\)`));
    const refused = await admin('pools', 'alert', 'SOL', '-5');
    assert.equal(refused.code, 2, refused.stderr);
    // `pools show` says the threshold too.
    await adminJson('pools', 'alert', 'SOL', String(available + 7));
    const shown = await adminJson<{ low_at: number; low_at_default: boolean; low: boolean }>('pools', 'show', 'SOL');
    assert.deepEqual([shown.low_at, shown.low_at_default, shown.low], [available + 7, false, true]);
    const told = await admin('pools', 'show', 'SOL');
    assert.match(told.stdout, new RegExp(`SOL pool: ${available} available, \\d+ assigned; low below ${available + 7}: LOW`));
    await adminJson('pools', 'alert', 'SOL', 'default');
  });

  it('loads a file longer than one batch in batches of at most 1000', async () => {
    const before = await adminJson<{ available: number }>('pools', 'show', 'SOL');
    const addresses = Array.from({ length: 1500 }, () => base58.encode(randomBytes(32)));
    const file = path.join(workDir, 'many.txt');
    writeFileSync(file, `${addresses.join('\n')}\n`);
    const loaded = await adminJson<{ chain: string; added: number; skipped: number; available: number }>('pools', 'load', 'SOL', file);
    assert.deepEqual(
      { chain: loaded.chain, added: loaded.added, skipped: loaded.skipped, available: loaded.available },
      { chain: 'SOL', added: 1500, skipped: 0, available: before.available + 1500 },
    );

    // A bad address in the second batch: the first is in, and the message says so.
    const mixed = [...Array.from({ length: 1000 }, () => base58.encode(randomBytes(32))), 'bad-address'];
    writeFileSync(file, mixed.join('\n'));
    const partial = await admin('pools', 'load', 'SOL', file);
    assert.equal(partial.code, 1);
    assert.match(partial.stderr, /not a valid SOL address.*batch 2 of 2.*1000 addresses added/);
  });

  it('splits address files into batches by count and by size', () => {
    assert.deepEqual(parseAddressFile('# header\r\na1\n\n  a2 # note\n#a3\n'), ['a1', 'a2']);
    const short = Array.from({ length: 2500 }, (_, i) => `a${i}`);
    assert.deepEqual(batches(short).map((batch) => batch.length), [1000, 1000, 500]);
    const long = Array.from({ length: 1000 }, () => 'x'.repeat(128));
    const sized = batches(long);
    assert.ok(sized.length > 1);
    for (const batch of sized) assert.ok(JSON.stringify({ addresses: batch }).length < 64 * 1024);
    assert.deepEqual(sized.flat(), long);
  });

  it('answers usage mistakes with exit 2 before any request', async () => {
    const id = '00000000-0000-0000-0000-000000000000';
    const mistakes = [
      ['prices', 'set', 'BTC'],
      ['prices', 'set', 'BTC', '7e4'],
      ['prices', 'set', 'BTC/X', '1'],
      ['simulator', 'confirm', id, 'two'],
      ['simulator', 'deposit', id, '--amount', '-1'],
      ['simulator', 'fail-next', 'deposit'],
      ['simulator', 'fail-next', 'payout', '--count', 'x'],
      ['simulator', 'drop', id, '--permanent'],
      ['orders', 'list', '--status', 'done'],
      ['orders', 'list', '--limit', 'ten'],
      ['orders', 'fail', id],
      ['orders', 'fail', id, '--reason', ' '],
      ['pools', 'load', 'SOL'],
      ['pools', 'show', 'S-O-L'],
      ['pools', 'alert', 'SOL', 'ten'],
    ];
    const runs = await Promise.all(mistakes.map((args) => admin(...args)));
    runs.forEach((run, i) => {
      assert.equal(run.code, 2, `${mistakes[i]?.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, /Usage: npm run admin/);
    });

    const help = await admin('--help');
    assert.equal(help.code, 0);
    for (const command of ['prices set <COIN> <usd>', 'simulator fail-next', 'orders show <order-id>', 'pools load <CHAIN> <file>']) {
      assert.ok(help.stdout.includes(command), command);
    }
  });

  it('reports API errors with exit 1', async () => {
    const missing = await admin('orders', 'show', '00000000-0000-0000-0000-000000000000');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /order not found/);

    const noPool = await admin('pools', 'show', 'BTC');
    assert.equal(noPool.code, 1);
    assert.match(noPool.stderr, /not a chain with an address pool/);

    const noFile = await admin('pools', 'load', 'SOL', path.join(workDir, 'missing.txt'));
    assert.equal(noFile.code, 1);
    assert.match(noFile.stderr, /cannot read/);
  });

  it('never prints the admin token', () => {
    assert.ok(outputs.length > 0);
    for (const output of outputs) assert.ok(!output.includes(t.adminToken));
  });
});
