import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'lossless-json';
import { Decimal } from '../../src/domain/money.js';
import { runAdminCli } from '../helpers/admin-cli.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';
import {
  exactJson,
  payoutRows,
  startHarness,
  tickUntil,
  type Harness,
  type OrderJson,
  shortFixedOrder,
} from '../lifecycle/lifecycle-helpers.js';

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

  it('CLI and API: an order by its short id, in any case, with or without the prefix; an unknown one is 404 (issue 30)', async () => {
    const id = await placeOrder();
    const shortId = (await t.db.handle.db.selectFrom('orders').select('short_id').where('id', '=', id).executeTakeFirstOrThrow()).short_id;
    for (const ref of [shortId, shortId.toLowerCase(), shortId.slice(shortId.indexOf('-') + 1).toLowerCase()]) {
      const shown = await adminJson<{ id: string; short_id: string }>('orders', 'show', ref);
      assert.equal(shown.id, id, ref);
    }
    // An action by short id acts on the order, and the audit log names it by its UUID.
    const failed = await admin('orders', 'fail', shortId, '--reason', 'found by its short id');
    assert.equal(failed.code, 0, failed.stderr);
    const [entry] = (await t.admin('GET', `/admin/v1/audit?action=${encodeURIComponent('POST /admin/v1/orders/:id/fail')}&limit=1`)).json<{ entries: { target: string }[] }>().entries;
    assert.equal(entry?.target, `orders/${id}`);
    // The audit log from the CLI: the fail is there, under its target.
    const listed = await admin('audit', 'list', '--target', `orders/${id}`, '--limit', '5');
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /POST \/admin\/v1\/orders\/:id\/fail/);
    const paged = await adminJson<{ entries: unknown[]; next_cursor: string | null }>('audit', 'list', '--limit', '1');
    assert.equal(paged.entries.length, 1);
    assert.ok(paged.next_cursor !== null);
    const unknown = await admin('orders', 'show', 'EX-ZZZZZZ');
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /not found/);
    assert.equal((await t.admin('GET', '/admin/v1/orders/not-an-id')).statusCode, 400);
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

/**
 * The operator's continue and refund on held orders (docs/contract.md §7.5) through the CLI, driven end to
 * end through the simulator and the worker, and the commission report with something in it:
 * what the operator pays out is what the partner's GET /partner/stats answers, every decimal.
 */
describe('operator continue and refund, and the commission report: CLI end to end', () => {
  let h: Harness;
  let address: string;
  let workDir: string;
  const outputs: string[] = [];
  let start: Date;

  const admin = (...args: string[]) => runAdminCli(args, { DATA_DIR: workDir, ADMIN_API_URL: address, ADMIN_TOKEN: h.t.adminToken }, outputs);

  /** The CLI's --json output, every number kept as its literal. */
  async function adminJson<T>(...args: string[]): Promise<T> {
    const run = await admin(...args, '--json');
    assert.equal(run.code, 0, run.stderr);
    return parse(run.stdout, null, (literal: string) => literal) as T;
  }

  async function actorsOf(id: string, reasons: string[]) {
    const rows = await h.t.db.handle.db
      .selectFrom('order_events')
      .select(['reason', 'from_status', 'to_status', 'actor'])
      .where('order_id', '=', id)
      .where('reason', 'in', reasons)
      .execute();
    return rows.map((row) => `${row.reason ?? ''}:${row.from_status ?? ''}→${row.to_status}:${row.actor}`);
  }

  /** A fixed order 10 % short, inside the pair's limits at the float rate: its refund is held for a choice. */
  async function heldOrder(): Promise<OrderJson> {
    const held = await shortFixedOrder(h);
    assert.equal(held.status, 'refunding');
    assert.deepEqual(held.actions, ['set_refund_address', 'continue', 'refund']);
    return held;
  }

  before(async () => {
    h = await startHarness({}, new ManualClock());
    start = h.clock.now();
    // A markup, so the continued order earns a commission (a partner is created with none).
    const markup = await h.t.admin('PATCH', `/admin/v1/partners/${h.partner.id}`, { markup_bps: 137 });
    assert.equal(markup.statusCode, 200, markup.body);
    address = await h.t.app.listen({ port: 0, host: '127.0.0.1' });
    workDir = mkdtempSync(path.join(tmpdir(), 'epa-cli-held-'));
  });
  after(async () => {
    await h.t.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('orders continue: re-priced and exchanged, then completed; the audit row names the operator; a second continue is refused', async () => {
    const held = await heldOrder();
    const run = await admin('orders', 'continue', held.id);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`^order ${held.id} \\(${held.short_id}\\) is now exchanging; actions: set_refund_address$`, 'm'));
    const again = await admin('orders', 'continue', held.id);
    assert.notEqual(again.code, 0);
    assert.match(again.stderr, /continue is not possible now/);
    await tickUntil(h, held.id, 'completed', 3);
    assert.deepEqual((await payoutRows(h, held.id)).map((row) => row.kind), ['payout']);
    assert.deepEqual(await actorsOf(held.id, ['continue']), ['continue:refunding→exchanging:operator']);
  });

  it('orders refund: the refund is requested at once and sent; continue is then refused', async () => {
    const held = await heldOrder();
    const refunding = await adminJson<{ status: string; actions: string[]; refund_hold_until: string | null }>('orders', 'refund', held.id);
    assert.equal(refunding.status, 'refunding');
    assert.deepEqual(refunding.actions, []);
    assert.equal(refunding.refund_hold_until, null);
    const late = await admin('orders', 'continue', held.id);
    assert.notEqual(late.code, 0);
    assert.match(late.stderr, /continue is not possible now/);
    await tickUntil(h, held.id, 'refunded', 2);
    assert.deepEqual((await payoutRows(h, held.id)).map((row) => row.kind), ['refund']);
    assert.deepEqual(await actorsOf(held.id, ['refund']), ['refund:refunding→refunding:operator']);
  });

  it('commissions report: per partner, the figures of its GET /partner/stats for the period, every decimal', async () => {
    // The continued order above completed: the only commission in this store.
    const res = await h.t.app.inject({ method: 'GET', url: '/api/v1/partner/stats', headers: { 'x-api-key': h.partner.apiKey } });
    assert.equal(res.statusCode, 200, res.body);
    const stats = exactJson<{ volume_usd: string; commission: { orders: string; usd: string; by_coin: Array<{ coin: string; amount: string; usd: string }> } }>(res);
    assert.equal(stats.commission.orders, '1');
    assert.ok(new Decimal(stats.commission.usd).gt(0), stats.commission.usd);

    const from = start.toISOString();
    const report = await adminJson<{
      partners: Array<{ partner_id: string; name: string | null; orders: string; volume_usd: string; commission_usd: string; by_coin: unknown[] }>;
    }>('commissions', 'report', '--from', from);
    assert.equal(report.partners.length, 1, JSON.stringify(report));
    const [row] = report.partners;
    assert.ok(row !== undefined);
    assert.equal(row.partner_id, h.partner.id);
    assert.equal(row.orders, '1');
    assert.equal(row.volume_usd, stats.volume_usd);
    assert.equal(row.commission_usd, stats.commission.usd);
    assert.deepEqual(row.by_coin, stats.commission.by_coin);
    const human = await admin('commissions', 'report', '--from', from);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, new RegExp(`^commission owed from ${from.replaceAll('.', '\\.')} to `, 'm'));
    const line = human.stdout.split('\n').find((text) => text.startsWith(h.partner.id));
    assert.ok(line !== undefined, human.stdout);
    const [coin] = stats.commission.by_coin;
    assert.ok(coin !== undefined);
    assert.deepEqual(line.split(/\s{2,}/).slice(-4), ['1', stats.volume_usd, stats.commission.usd, `${coin.amount} ${coin.coin}`]);
  });
});
