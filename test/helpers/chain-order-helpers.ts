import assert from 'node:assert/strict';
import { parse } from 'lossless-json';
import type { WatchedOrder } from '../../src/chains/adapters.js';
import type { OrderStatus } from '../../src/domain/order-status.js';
import { watchedOrderOf } from '../../src/worker/lifecycle-worker.js';
import { buildTestApp, ManualClock, type TestApp } from './test-app.js';

/** An app whose worker only runs when the test ticks it, on a clock the test moves. */
export interface ChainHarness {
  t: TestApp;
  clock: ManualClock;
  apiKey: string;
}

/** DEPOSIT_WINDOW_MS: an order expires 30 minutes after creation. */
export const WINDOW_MS = 30 * 60 * 1000;
/** A BIP-173 test vector: a valid BTC address for payouts. */
export const BTC_ADDRESS = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';

export async function startChainHarness(env: Record<string, string>, clock = new ManualClock()): Promise<ChainHarness> {
  const t = await buildTestApp({ clock, env: { WORKER: 'off', SIMULATOR_AUTO: '0', PRICE_POLL_SECONDS: '3600', ...env } });
  const { apiKey } = await t.createPartner();
  return { t, clock, apiKey };
}

/** An order as GET shows it, numbers as their exact literals. */
export interface OrderJson {
  id: string;
  status: OrderStatus;
  deposit_address: string;
  deposit_txid: string | null;
  deposit_confirmations: string | null;
  amount_from_received: string | null;
  status_reason: string | null;
  [field: string]: unknown;
}

/** POST /api/v1/partner/orders (float) with `amount_from` written as a raw JSON number. */
export async function createOrder(h: ChainHarness, fields: Record<string, unknown> & { amount_from: string }): Promise<OrderJson> {
  const { amount_from, ...rest } = fields;
  const payload = JSON.stringify({ rate_type: 'float', ...rest }).replace(/^\{/, `{"amount_from":${amount_from},`);
  const res = await h.t.app.inject({
    method: 'POST',
    url: '/api/v1/partner/orders',
    headers: { 'x-api-key': h.apiKey, 'content-type': 'application/json' },
    payload,
  });
  assert.equal(res.statusCode, 201, res.body);
  return parse(res.body, null, (literal: string) => literal) as OrderJson;
}

export async function getOrder(h: ChainHarness, id: string): Promise<OrderJson> {
  const res = await h.t.app.inject({ method: 'GET', url: `/api/v1/partner/orders/${id}`, headers: { 'x-api-key': h.apiKey } });
  assert.equal(res.statusCode, 200, res.body);
  return parse(res.body, null, (literal: string) => literal) as OrderJson;
}

/** Moves the clock, then re-polls the (static) prices so they are fresh at the new time. */
export async function advance(h: ChainHarness, ms: number): Promise<void> {
  h.clock.advance(ms);
  await h.t.runtime.prices.refresh();
}

/** Worker passes until the order reads `target` (at most `maxTicks`). */
export async function tickUntil(h: ChainHarness, id: string, target: OrderStatus, maxTicks = 8): Promise<void> {
  const seen: OrderStatus[] = [];
  for (let i = 0; i < maxTicks; i++) {
    await h.t.runtime.worker.tick();
    seen.push((await getOrder(h, id)).status);
    if (seen.at(-1) === target) return;
  }
  assert.fail(`order ${id} did not reach ${target} in ${maxTicks} passes; statuses seen: ${seen.join(' → ')}`);
}

/** `from→to` of each status change in the audit trail (`∅` for creation; confirmation counts left out). */
export async function moves(h: ChainHarness, id: string): Promise<string[]> {
  const rows = await h.t.db.handle.db
    .selectFrom('order_events')
    .select(['from_status', 'to_status'])
    .where('order_id', '=', id)
    .orderBy('order_version')
    .execute();
  // order_version is the trail's order (rows of one pass share the manual clock's time);
  // following the chain from creation also proves each move starts where the last one ended.
  const trail: string[] = [];
  let at: string | null = null;
  const remaining = rows.filter((row) => row.from_status !== row.to_status);
  while (remaining.length > 0) {
    const index = remaining.findIndex((row) => row.from_status === at);
    assert.ok(index >= 0, `audit trail of ${id} is not a path`);
    const [next] = remaining.splice(index, 1);
    trail.push(`${next?.from_status ?? '∅'}→${next?.to_status}`);
    at = next?.to_status ?? null;
  }
  return trail;
}

/** The order as a watcher is handed it by the worker. */
export async function watchedOrder(h: ChainHarness, id: string, chain: string): Promise<WatchedOrder> {
  const row = await h.t.db.handle.db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  return watchedOrderOf({ ...row, chain });
}

/** A sample of one Prometheus series, or undefined when absent. */
export async function metricValue(h: ChainHarness, series: string): Promise<number | undefined> {
  const res = await h.t.app.inject({ method: 'GET', url: '/metrics' });
  assert.equal(res.statusCode, 200, res.body);
  const line = res.body.split('\n').find((text) => text.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
