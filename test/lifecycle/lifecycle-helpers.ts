import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Decimal, type DecimalValue } from '../../src/domain/money.js';
import type { LightMyRequestResponse } from 'fastify';
import { parse } from 'lossless-json';
import type { OrderStatus } from '../../src/domain/order-status.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';

/** Nothing runs by itself: the test drives the worker with tick() and moves the clock by hand. */
export const LIFECYCLE_ENV: Readonly<Record<string, string>> = {
  WORKER: 'off',
  SIMULATOR_AUTO: '0',
  PRICE_POLL_SECONDS: '3600',
};

/** A checksummed EVM address (EIP-55 test vector) receiving ETH payouts. */
export const ETH_RECIPIENT = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
/** A BIP-173 test vector, used as the BTC refund address. */
export const BTC_REFUND = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
/** BTC needs 2 confirmations in the seed catalog (migration 0002). */
export const BTC_CONFIRMATIONS = 2;
/** DEPOSIT_WINDOW_MS: an order expires 30 minutes after creation. */
export const WINDOW_MS = 30 * 60 * 1000;

export interface Harness {
  t: TestApp;
  clock: ManualClock;
  partner: { id: string; apiKey: string; keyId: string };
}

export async function startHarness(env: Record<string, string> = {}, clock = new ManualClock()): Promise<Harness> {
  const t = await buildTestApp({ clock, env: { ...LIFECYCLE_ENV, ...env } });
  const partner = await t.createPartner();
  return { t, clock, partner };
}

/** An order as the partner API shows it; every JSON number kept as its exact literal. */
export interface OrderJson {
  id: string;
  short_id: string;
  status: OrderStatus;
  expires_at: string;
  amount_from_expected: string;
  amount_to_expected: string;
  rate_type: 'float' | 'fixed';
  deposit_txid: string | null;
  deposit_confirmations: string | null;
  deposit_confirmations_required: string;
  amount_from_received: string | null;
  payout_txid: string | null;
  refund_txid: string | null;
  status_reason: string | null;
  [field: string]: unknown;
}

/** JSON with numbers as their literal text (JSON.parse would round long decimals). */
export function exactJson<T>(res: LightMyRequestResponse): T {
  return parse(res.body, null, (literal: string) => literal) as T;
}

export interface OrderFields {
  coin_from?: string;
  network_from?: string;
  coin_to?: string;
  network_to?: string;
  amount_from?: string;
  rate_type?: 'float' | 'fixed';
  recipient_address?: string;
  refund_address?: string | null;
  quote_id?: string;
  external_id?: string;
}

/** POST /api/v1/partner/orders: BTC → ETH, float, 0.5 BTC, with a refund address unless overridden. */
export async function createOrder(h: Harness, fields: OrderFields = {}, apiKey = h.partner.apiKey): Promise<OrderJson> {
  const { amount_from = '0.5', ...rest } = fields;
  const body = {
    coin_from: 'BTC',
    network_from: 'BTC',
    coin_to: 'ETH',
    network_to: 'ETH',
    rate_type: 'float',
    recipient_address: ETH_RECIPIENT,
    refund_address: BTC_REFUND,
    ...rest,
  };
  // amount_from written as a raw JSON number literal, exactly as given.
  const payload = JSON.stringify(body).replace(/^\{/, `{"amount_from":${amount_from},`);
  const res = await h.t.app.inject({
    method: 'POST',
    url: '/api/v1/partner/orders',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    payload,
  });
  assert.equal(res.statusCode, 201, res.body);
  const order = exactJson<OrderJson>(res);
  assert.equal(order.status, 'waiting_deposit');
  return order;
}

/** GET /api/v1/partner/orders/{id} with the partner's key. */
export async function getOrder(h: Harness, id: string, apiKey = h.partner.apiKey): Promise<OrderJson> {
  const res = await h.t.app.inject({ method: 'GET', url: `/api/v1/partner/orders/${id}`, headers: { 'x-api-key': apiKey } });
  assert.equal(res.statusCode, 200, res.body);
  return exactJson<OrderJson>(res);
}

/** A fixed-rate quote_id from GET /partner/rates (keyed, so the quote belongs to the partner). */
export async function fixedQuote(h: Harness, amount: string): Promise<string> {
  const res = await h.t.app.inject({
    method: 'GET',
    url: `/api/v1/partner/rates?coin_from=BTC&coin_to=ETH&amount=${amount}&rate_type=fixed`,
    headers: { 'x-api-key': h.partner.apiKey },
  });
  assert.equal(res.statusCode, 200, res.body);
  const { quote_id } = res.json<{ quote_id?: string }>();
  assert.ok(quote_id !== undefined, res.body);
  return quote_id;
}

async function adminOk(h: Harness, url: string, payload?: unknown): Promise<LightMyRequestResponse> {
  const res = await h.t.admin('POST', url, payload);
  assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
  return res;
}

/** A simulated deposit to the order's address (amount_from_expected unless given). */
export async function simulateDeposit(h: Harness, id: string, body: { amount?: string; txid?: string } = {}): Promise<void> {
  await adminOk(h, `/admin/v1/simulator/orders/${id}/deposit`, body);
}

export async function setConfirmations(h: Harness, id: string, count: number): Promise<void> {
  await adminOk(h, `/admin/v1/simulator/orders/${id}/confirmations`, { count });
}

/**
 * A fixed-rate order paid 10 % short and confirmed, as read after the worker's two ticks: off
 * its rate but inside the pair's limits at the float rate, so it is refunding, its refund held
 * for the partner's choice (continue or refund) unless REFUND_HOLD_MINUTES=0.
 */
export async function shortFixedOrder(h: Harness): Promise<OrderJson> {
  const order = await createOrder(h, { rate_type: 'fixed', quote_id: await fixedQuote(h, '0.5') });
  await simulateDeposit(h, order.id, { amount: new Decimal(order.amount_from_expected).times('0.9').toFixed() });
  await h.t.runtime.worker.tick();
  await setConfirmations(h, order.id, BTC_CONFIRMATIONS);
  await h.t.runtime.worker.tick();
  return getOrder(h, order.id);
}

export async function dropDeposit(h: Harness, id: string): Promise<void> {
  await adminOk(h, `/admin/v1/simulator/orders/${id}/drop-deposit`);
}

export async function injectFault(h: Harness, step: 'exchange' | 'payout' | 'refund', count: number, permanent: boolean): Promise<void> {
  await adminOk(h, '/admin/v1/simulator/faults', { step, count, permanent });
}

/** Moves the clock, then re-polls the (static) prices so they are fresh at the new time. */
export async function advance(h: Harness, ms: number): Promise<void> {
  h.clock.advance(ms);
  await h.t.runtime.prices.refresh();
}

/**
 * Ticks the worker until the order reads `target` (at most `maxTicks` passes), and returns every
 * status GET showed after each pass, in order.
 */
export async function tickUntil(h: Harness, id: string, target: OrderStatus, maxTicks = 8, apiKey = h.partner.apiKey): Promise<OrderStatus[]> {
  const seen: OrderStatus[] = [];
  for (let i = 0; i < maxTicks; i++) {
    await h.t.runtime.worker.tick();
    // A key reads its own mode's orders only (docs/contract.md §10.2): a sandbox order is read with a sandbox key.
    const { status } = await getOrder(h, id, apiKey);
    seen.push(status);
    if (status === target) return seen;
  }
  assert.fail(`order ${id} did not reach ${target} in ${maxTicks} passes; statuses seen: ${seen.join(' → ')}`);
}

/** Deposit of the expected amount, fully confirmed, then passes until `target`. */
export async function depositAndRun(
  h: Harness,
  id: string,
  target: OrderStatus,
  deposit: { amount?: string; txid?: string } = {},
  apiKey = h.partner.apiKey,
): Promise<OrderJson> {
  await simulateDeposit(h, id, deposit);
  await h.t.runtime.worker.tick();
  await setConfirmations(h, id, BTC_CONFIRMATIONS);
  await tickUntil(h, id, target, 8, apiKey);
  return getOrder(h, id, apiKey);
}

export interface EventRow {
  from_status: OrderStatus | null;
  to_status: OrderStatus;
  reason: string | null;
  data: unknown;
  created_at: Date;
}

/**
 * The order's audit rows in the order they happened: by order_version, the trail's order (rows
 * written in one pass share the manual clock's timestamp, and a tie by time alone came back in
 * either order on PostgreSQL: refunding→refunded before refunding→refunding). Following the
 * chain then proves each move starts where the previous one ended (a path from creation).
 */
export async function orderEvents(h: Harness, id: string): Promise<EventRow[]> {
  const rows = await h.t.db.handle.db
    .selectFrom('order_events')
    .select(['from_status', 'to_status', 'reason', 'data', 'created_at'])
    .where('order_id', '=', id)
    .orderBy('order_version')
    .orderBy('created_at')
    .execute();
  const remaining = [...rows];
  const chain: EventRow[] = [];
  let at: OrderStatus | null = null;
  while (remaining.length > 0) {
    const index = remaining.findIndex((row) => row.from_status === at);
    assert.ok(index >= 0, `audit trail of ${id} is not a path: after ${String(at)} come ${JSON.stringify(remaining)}`);
    const [next] = remaining.splice(index, 1);
    assert.ok(next !== undefined);
    if (chain.length > 0) {
      const previous = chain[chain.length - 1];
      assert.ok(previous !== undefined && previous.created_at <= next.created_at, 'audit rows go forward in time');
    }
    chain.push(next);
    at = next.to_status;
  }
  return chain;
}

/** `from→to` of each audit row, in order (`∅` for creation). */
export async function moves(h: Harness, id: string): Promise<string[]> {
  return (await orderEvents(h, id)).map((event) => `${event.from_status ?? '∅'}→${event.to_status}`);
}

export async function payoutRows(h: Harness, id: string) {
  return h.t.db.handle.db.selectFrom('payouts').selectAll().where('order_id', '=', id).orderBy('kind').execute();
}

/** Simulated sends made for the order (their idempotency keys are `<order id>:<kind>`). */
export async function sendRows(h: Harness, id: string) {
  return h.t.db.handle.db
    .selectFrom('simulated_sends')
    .selectAll()
    .where('idempotency_key', 'like', `${id}:%`)
    .orderBy('idempotency_key')
    .execute();
}

export async function storedOrder(h: Harness, id: string) {
  return h.t.db.handle.db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** The txid the simulated payout sender derives from an idempotency key. */
export function simulatedTxid(id: string, kind: 'payout' | 'refund'): string {
  return createHash('sha256').update(`simulated:${id}:${kind}`).digest('hex');
}

export function assertDecimalEq(actual: DecimalValue | null | undefined, expected: DecimalValue, what: string): void {
  assert.ok(actual !== null && actual !== undefined, `${what} is missing`);
  assert.ok(new Decimal(actual).eq(expected), `${what}: ${String(actual)} ≠ ${new Decimal(expected).toFixed()}`);
}

/** A sample value of one Prometheus series, or undefined when absent (gauges recounted first). */
export async function metricValue(h: Harness, series: string): Promise<number | undefined> {
  // orders_by_status is recounted on a timer; a test reads what it has just done.
  await h.t.runtime.orderStatusGauge.refresh();
  const res = await h.t.app.inject({ method: 'GET', url: '/metrics' });
  assert.equal(res.statusCode, 200, res.body);
  const line = res.body.split('\n').find((text) => text.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
