import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Decimal } from '../../src/domain/money.js';
import type { TestApp } from '../helpers/test-app.js';
import {
  BTC_REFUND,
  createOrder,
  depositAndRun,
  ETH_RECIPIENT,
  exactJson,
  orderEvents,
  startHarness,
  type Harness,
} from './lifecycle-helpers.js';

interface AdminOrder {
  id: string;
  status: string;
  stored_status: string;
  partner_id: string;
  refund_address: string | null;
  amount_to_final: string | null;
  amount_to_expected: string;
  payout_txid: string | null;
  attempts: string;
  version: string;
  events?: Array<{ from_status: string | null; to_status: string; reason: string | null; data: unknown; created_at: string }>;
  payouts?: Array<{ kind: string; payer: string; address: string; tag: string | null; amount: string; status: string; txid: string | null; sent_at: string | null }>;
}

describe('operator order views', () => {
  let h: Harness;
  let t: TestApp;
  let otherPartner: { id: string; apiKey: string };
  /** Created one second apart, in this order. */
  let completedId: string;
  let waitingId: string;
  let failedId: string;
  let othersId: string;

  before(async () => {
    h = await startHarness();
    t = h.t;
    otherPartner = await t.createPartner({ name: 'Second Partner' });
    completedId = (await createOrder(h)).id;
    await depositAndRun(h, completedId, 'completed');
    h.clock.advance(1000);
    waitingId = (await createOrder(h, { refund_address: null })).id;
    h.clock.advance(1000);
    failedId = (await createOrder(h)).id;
    const fail = await t.admin('POST', `/admin/v1/orders/${failedId}/fail`, { reason: 'test' });
    assert.equal(fail.statusCode, 200, fail.body);
    h.clock.advance(1000);
    othersId = (await createOrder(h, {}, otherPartner.apiKey)).id;
  });
  after(() => h.t.close());

  async function list(query: string): Promise<AdminOrder[]> {
    const res = await t.admin('GET', `/admin/v1/orders${query === '' ? '' : `?${query}`}`);
    assert.equal(res.statusCode, 200, res.body);
    return exactJson<AdminOrder[]>(res);
  }
  const ids = (rows: AdminOrder[]): string[] => rows.map((row) => row.id);

  it('lists every order newest first', async () => {
    assert.deepEqual(ids(await list('')), [othersId, failedId, waitingId, completedId]);
  });

  it('filters by status', async () => {
    assert.deepEqual(ids(await list('status=completed')), [completedId]);
    assert.deepEqual(ids(await list('status=failed')), [failedId]);
    assert.deepEqual(ids(await list('status=waiting_deposit')), [othersId, waitingId]);
    assert.deepEqual(ids(await list('status=refunding')), []);
  });

  it('filters by partner_id, alone and with status', async () => {
    assert.deepEqual(ids(await list(`partner_id=${h.partner.id}`)), [failedId, waitingId, completedId]);
    assert.deepEqual(ids(await list(`partner_id=${otherPartner.id}`)), [othersId]);
    assert.deepEqual(ids(await list(`partner_id=${h.partner.id}&status=waiting_deposit`)), [waitingId]);
    assert.deepEqual(ids(await list(`partner_id=${otherPartner.id}&status=completed`)), []);
    for (const row of await list(`partner_id=${h.partner.id}`)) assert.equal(row.partner_id, h.partner.id);
  });

  it('pages with limit and offset', async () => {
    const all = `partner_id=${h.partner.id}`;
    assert.deepEqual(ids(await list(`${all}&limit=2`)), [failedId, waitingId]);
    assert.deepEqual(ids(await list(`${all}&limit=2&offset=2`)), [completedId]);
    assert.deepEqual(ids(await list(`${all}&limit=1&offset=1`)), [waitingId]);
    assert.deepEqual(ids(await list(`${all}&offset=3`)), []);
  });

  it('refuses bad filters and callers without the admin token', async () => {
    assert.equal((await t.admin('GET', '/admin/v1/orders?status=lost')).statusCode, 400);
    assert.equal((await t.admin('GET', '/admin/v1/orders?limit=0')).statusCode, 400);
    assert.equal((await t.admin('GET', '/admin/v1/orders?offset=-1')).statusCode, 400);
    assert.equal((await t.admin('GET', '/admin/v1/orders?partner_id=nope')).statusCode, 400);
    const anonymous = await t.app.inject({ method: 'GET', url: '/admin/v1/orders' });
    assert.equal(anonymous.statusCode, 401, anonymous.body);
    const partnerKey = await t.app.inject({ method: 'GET', url: '/admin/v1/orders', headers: { authorization: `Bearer ${h.partner.apiKey}` } });
    assert.equal(partnerKey.statusCode, 401, partnerKey.body);
  });

  it('GET /admin/v1/orders/{id} shows the order with its audit trail and payouts', async () => {
    const res = await t.admin('GET', `/admin/v1/orders/${completedId}`);
    assert.equal(res.statusCode, 200, res.body);
    const order = exactJson<AdminOrder>(res);
    assert.equal(order.id, completedId);
    assert.equal(order.status, 'completed');
    assert.equal(order.stored_status, 'completed');
    assert.equal(order.partner_id, h.partner.id);
    assert.equal(order.refund_address, BTC_REFUND);
    assert.ok(order.amount_to_final !== null && new Decimal(order.amount_to_final).eq(order.amount_to_expected));
    assert.equal(order.attempts, '0');

    const trail = order.events ?? [];
    // Same rows as the table, in time order (moves within one pass share a timestamp).
    const stored = await orderEvents(h, completedId);
    assert.deepEqual(
      trail.map((event) => `${event.from_status ?? '∅'}→${event.to_status}:${event.reason}`).sort(),
      stored.map((event) => `${event.from_status ?? '∅'}→${event.to_status}:${event.reason}`).sort(),
    );
    assert.equal(trail.length, 5);
    assert.equal(trail[0]?.to_status, 'waiting_deposit');
    assert.equal(trail[0]?.from_status, null);
    assert.equal(trail.at(-1)?.to_status, 'completed');
    for (let i = 1; i < trail.length; i++) {
      assert.ok(String(trail[i - 1]?.created_at) <= String(trail[i]?.created_at), 'events in time order');
    }
    const creation = trail[0]?.data as { rate_type?: string; quote_id?: unknown } | undefined;
    assert.equal(creation?.rate_type, 'float');
    assert.equal(creation.quote_id, null);
    assert.equal(Number(order.version), stored.length - 1, 'one version per move after creation');

    assert.equal(order.payouts?.length, 1);
    const [payout] = order.payouts ?? [];
    assert.equal(payout?.kind, 'payout');
    assert.equal(payout?.status, 'sent');
    assert.equal(payout?.payer, 'simulator', 'the embedded default pays on the simulator');
    assert.equal(payout?.address, ETH_RECIPIENT);
    assert.equal(payout?.tag, null);
    assert.equal(payout?.txid, order.payout_txid);
    assert.ok(payout?.sent_at !== null && payout?.sent_at !== undefined);
    assert.ok(new Decimal(payout.amount).eq(order.amount_to_expected));
  });

  it('GET /admin/v1/orders/{id} of a failed order shows the operator reason; unknown id → 404', async () => {
    const res = await t.admin('GET', `/admin/v1/orders/${failedId}`);
    assert.equal(res.statusCode, 200, res.body);
    const order = exactJson<AdminOrder & { status_reason: string }>(res);
    assert.equal(order.status, 'failed');
    assert.equal(order.status_reason, 'operator');
    assert.deepEqual(order.payouts, []);
    const last = order.events?.at(-1);
    assert.equal(last?.to_status, 'failed');
    assert.equal(last?.reason, 'operator');
    assert.deepEqual(last?.data, { note: 'test' });

    const missing = await t.admin('GET', '/admin/v1/orders/00000000-0000-4000-8000-000000000000');
    assert.equal(missing.statusCode, 404, missing.body);
  });
});
