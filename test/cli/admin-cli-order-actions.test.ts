import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runAdminCli } from '../helpers/admin-cli.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

const RECIPIENT = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const BTC_REFUND = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';

interface AdminOrder {
  id: string;
  status: string;
  status_reason: string | null;
  actions: string[];
  refund_address: string | null;
}

/**
 * The order actions for the operator (issue 14): the operator API on any order, with the
 * operator as the audit row's actor, and the CLI commands over it.
 */
describe('operator order actions: API and CLI', () => {
  let t: TestApp;
  let address: string;
  let workDir: string;
  const outputs: string[] = [];

  const admin = (...args: string[]) => runAdminCli(args, { DATA_DIR: workDir, ADMIN_API_URL: address, ADMIN_TOKEN: t.adminToken }, outputs);

  async function adminJson<T>(...args: string[]): Promise<T> {
    const run = await admin(...args, '--json');
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout) as T;
  }

  async function placeOrder(refund = true): Promise<string> {
    const { apiKey } = await t.createPartner();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { 'x-api-key': apiKey },
      payload: {
        coin_from: 'BTC',
        network_from: 'BTC',
        coin_to: 'ETH',
        network_to: 'ETH',
        amount_from: 0.1,
        rate_type: 'float',
        recipient_address: RECIPIENT,
        ...(refund ? { refund_address: BTC_REFUND } : {}),
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json<{ id: string }>().id;
  }

  async function actors(id: string) {
    const rows = await t.db.handle.db.selectFrom('order_events').select(['reason', 'actor']).where('order_id', '=', id).orderBy('order_version').execute();
    return rows.map((row) => `${row.reason ?? ''}:${row.actor}`);
  }

  before(async () => {
    t = await buildTestApp({ env: { WORKER: 'off', SIMULATOR_AUTO: '0' } });
    address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    workDir = mkdtempSync(path.join(tmpdir(), 'epa-cli-actions-'));
  });
  after(async () => {
    await t.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('API: the operator sets a refund address and cancels any order; the audit rows name the operator', async () => {
    const id = await placeOrder(false);
    const bad = await t.admin('PUT', `/admin/v1/orders/${id}/refund-address`, { refund_address: 'nope' });
    assert.equal(bad.statusCode, 400, bad.body);
    const set = await t.admin('PUT', `/admin/v1/orders/${id}/refund-address`, { refund_address: BTC_REFUND });
    assert.equal(set.statusCode, 200, set.body);
    assert.equal(set.json<AdminOrder>().refund_address, BTC_REFUND);
    const cancelled = await t.admin('POST', `/admin/v1/orders/${id}/cancel`);
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    assert.equal(cancelled.json<AdminOrder>().status, 'expired');
    assert.equal(cancelled.json<AdminOrder>().status_reason, 'cancelled');
    const again = await t.admin('POST', `/admin/v1/orders/${id}/continue`);
    assert.equal(again.statusCode, 409, again.body);
    assert.equal((await t.admin('POST', '/admin/v1/orders/00000000-0000-4000-8000-000000000000/cancel')).statusCode, 404);
    assert.deepEqual(await actors(id), ['created:partner', 'set_refund_address:operator', 'cancelled:operator']);
  });

  it('CLI: orders refund-address, orders cancel, and a refused action exits non-zero with the reason', async () => {
    const id = await placeOrder(false);
    const usage = await admin('orders', 'refund-address', id);
    assert.notEqual(usage.code, 0);
    assert.match(usage.stderr, /--address/);
    const set = await adminJson<AdminOrder>('orders', 'refund-address', id, '--address', BTC_REFUND);
    assert.equal(set.refund_address, BTC_REFUND);
    const human = await admin('orders', 'cancel', id);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /is now expired; actions: none/);
    const refused = await admin('orders', 'refund', id);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /refund is not possible now/);
    const shown = await adminJson<AdminOrder & { events: Array<{ reason: string }> }>('orders', 'show', id);
    assert.equal(shown.status_reason, 'cancelled');
    assert.deepEqual(await actors(id), ['created:partner', 'set_refund_address:operator', 'cancelled:operator']);
  });

  it('CLI: commissions report, with nothing exchanged in the period', async () => {
    const human = await admin('commissions', 'report', '--from', '2020-01-01T00:00:00Z', '--to', '2020-02-01T00:00:00Z');
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /^commission owed from 2020-01-01T00:00:00\.000Z to 2020-02-01T00:00:00\.000Z: none$/m);
    const json = await adminJson<{ partners: unknown[] }>('commissions', 'report');
    assert.deepEqual(json.partners, []);
    const bad = await admin('commissions', 'report', '--from', 'yesterday');
    assert.notEqual(bad.code, 0);
  });
});
