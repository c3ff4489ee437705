import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runAdminCli } from '../helpers/admin-cli.js';
import { createOrder, depositAndRun, startHarness, type Harness } from '../lifecycle/lifecycle-helpers.js';

/** The ledger's reads from the admin CLI (docs/contract.md §11.5): `ledger trial-balance` and `ledger entries`. */
describe('admin CLI: ledger', () => {
  let h: Harness;
  let address: string;
  let workDir: string;
  const outputs: string[] = [];
  const admin = (...args: string[]) => runAdminCli(args, { DATA_DIR: workDir, ADMIN_API_URL: address, ADMIN_TOKEN: h.t.adminToken }, outputs);

  before(async () => {
    h = await startHarness();
    address = await h.t.app.listen({ port: 0, host: '127.0.0.1' });
    workDir = mkdtempSync(path.join(tmpdir(), 'epa-cli-ledger-'));
  });
  after(async () => {
    await h.t.close();
    rmSync(workDir, { recursive: true, force: true });
    for (const output of outputs) assert.ok(!output.includes(h.t.adminToken), 'the admin token was printed');
  });

  it('an empty ledger, then a completed order: balances per asset with their zero totals', async () => {
    const empty = await admin('ledger', 'trial-balance');
    assert.equal(empty.code, 0, empty.stderr);
    assert.equal(empty.stdout, 'the ledger is empty\n');
    const order = await createOrder(h, { amount_from: '0.25' });
    await depositAndRun(h, order.id, 'completed');
    const run = await admin('ledger', 'trial-balance');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^ASSET +ACCOUNT +BALANCE$/m);
    assert.match(run.stdout, /^BTC +deposits +0\.25$/m);
    assert.match(run.stdout, /^BTC +TOTAL +0$/m);
    assert.match(run.stdout, /^ETH +TOTAL +0$/m);
    const past = await admin('ledger', 'trial-balance', '--at', '2020-01-01');
    assert.equal(past.stdout, 'the ledger is empty\n');
    const bad = await admin('ledger', 'trial-balance', '--at', 'yesterday');
    assert.notEqual(bad.code, 0);
  });

  it('entries as a table, and as the CSV the API writes', async () => {
    const run = await admin('ledger', 'entries');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^POSTED +KIND +ACCOUNT +ASSET +AMOUNT +ORDER_ID$/m);
    assert.match(run.stdout, / deposit +deposits +BTC +0\.25 /);
    const csv = await admin('ledger', 'entries', '--csv');
    assert.equal(csv.code, 0, csv.stderr);
    const records = csv.stdout.split('\r\n');
    assert.equal(records[0], 'created_at,transaction_id,kind,account,asset,amount,order_id,partner_id,memo');
    assert.equal(records.at(-1), '');
    assert.ok(records.some((record) => /,deposit,deposits,BTC,0\.25,/.test(record)), csv.stdout);
    const none = await admin('ledger', 'entries', '--to', '2020-01-01');
    assert.match(none.stdout, /: none$/m);
  });

  it('commissions pay --period: a finished month only; a partner without a payout address is listed as skipped, the same on a second run', async () => {
    const markup = await h.t.admin('PATCH', `/admin/v1/partners/${h.partner.id}`, { markup_bps: 50 });
    assert.equal(markup.statusCode, 200, markup.body);
    const order = await createOrder(h, { amount_from: '0.3' });
    await depositAndRun(h, order.id, 'completed');
    const period = h.clock.now().toISOString().slice(0, 7);
    const running = await admin('commissions', 'pay', '--period', period);
    assert.equal(running.code, 1, running.stdout);
    assert.match(running.stderr, /error: /);
    h.clock.set(new Date(`${period}-01T00:00:00Z`));
    h.clock.advance(40 * 24 * 3600 * 1000);
    for (let run = 0; run < 2; run++) {
      const paid = await admin('commissions', 'pay', '--period', period);
      assert.equal(paid.code, 0, paid.stderr);
      assert.match(paid.stdout, new RegExp(`^commission for ${period}: 0 payout\\(s\\) made, 0 made before, [1-9]\\d* skipped$`, 'm'));
      assert.match(paid.stdout, new RegExp(`^${h.partner.id} +ETH +[0-9.]+ +(no_payout_address|no_payout_path)$`, 'm'));
    }
    const usage = await admin('commissions', 'pay');
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /needs --period YYYY-MM/);
  });
});
