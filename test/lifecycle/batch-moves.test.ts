import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { MOVE_BATCH_LIMIT } from '../../src/db/repositories/order-moves-repository.js';
import { findOrdersPastExpiry } from '../../src/db/repositories/order-queue-repository.js';
import type { NewOrder } from '../../src/db/schema/orders.js';
import {
  advance,
  assertDecimalEq,
  BTC_REFUND,
  createOrder,
  metricValue,
  moves,
  orderEvents,
  payoutRows,
  startHarness,
  storedOrder,
  WINDOW_MS,
  type Harness,
} from './lifecycle-helpers.js';

const EXPIRED = 'order_transitions_total{from="waiting_deposit",to="expired"}';

describe('OrderLifecycle.applyToMany: many orders moved by the lifecycle table at once', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.t.close());

  const db = () => h.t.db.handle.db;
  const lifecycle = () => h.t.runtime.lifecycle;

  /** `count` copies of the order row (new ids and short ids), each with its creation event. */
  async function copiesOf(id: string, count: number): Promise<string[]> {
    // Each copy is an order of its own: its id, short id and status link token are its own (the
    // token's column default makes one per row).
    const { id: _id, short_id, attempts: _attempts, status_token: _token, ...row } = await storedOrder(h, id);
    const prefix = short_id.split('-')[0] ?? 'EX';
    const ids: string[] = [];
    for (let start = 0; start < count; start += 500) {
      const rows: NewOrder[] = Array.from({ length: Math.min(500, count - start) }, (_, i) => ({
        ...row,
        id: randomUUID(),
        short_id: `${prefix}-${String(start + i).padStart(6, '0')}`,
      }));
      await db().insertInto('orders').values(rows).execute();
      await db()
        .insertInto('order_events')
        .values(rows.map((copy) => ({ order_id: copy.id, from_status: null, to_status: 'waiting_deposit', reason: 'created', order_version: 0, created_at: copy.created_at })))
        .execute();
      ids.push(...rows.map((copy) => copy.id));
    }
    return ids;
  }

  it('sweeps more overdue orders than one statement moves: each once, with its audit row, all counted', async () => {
    const counted = (await metricValue(h, EXPIRED)) ?? 0;
    const first = await createOrder(h);
    const ids = [first.id, ...(await copiesOf(first.id, MOVE_BATCH_LIMIT + 4))];
    await advance(h, WINDOW_MS);

    assert.equal(await h.t.runtime.worker.sweepExpired(), ids.length);
    const moved = await db().selectFrom('orders').select(['status', 'version']).where('id', 'in', ids).execute();
    assert.equal(moved.length, ids.length);
    assert.ok(moved.every((row) => row.status === 'expired' && row.version === 1), 'every order expired once');
    const events = await db()
      .selectFrom('order_events')
      .select(['order_id', 'reason', 'order_version', 'created_at'])
      .where('order_id', 'in', ids)
      .where('to_status', '=', 'expired')
      .execute();
    assert.equal(events.length, ids.length, 'one audit row per order');
    assert.ok(events.every((event) => event.reason === 'time_limit' && event.order_version === 1));
    assert.ok(events.every((event) => event.created_at.getTime() === h.clock.now().getTime()));
    assert.deepEqual(await moves(h, first.id), ['∅→waiting_deposit', 'waiting_deposit→expired']);
    assert.equal(await metricValue(h, EXPIRED), counted + ids.length);
    assert.equal(await h.t.runtime.worker.sweepExpired(), 0);
  });

  it('an order that moved since it was read is left alone; one the table refuses is skipped', async () => {
    const stale = await createOrder(h);
    const other = await createOrder(h);
    await advance(h, WINDOW_MS);
    const young = await createOrder(h);
    const due = await findOrdersPastExpiry(db(), h.clock.now());
    assert.deepEqual(due.map((row) => row.id).sort(), [stale.id, other.id].sort());

    // Another worker expires one of them first: the batch, decided on the old version, leaves it.
    assert.ok((await lifecycle().apply(stale.id, 'time_limit')).ok);
    const youngRow = await storedOrder(h, young.id);
    assert.equal(await lifecycle().applyToMany([...due, youngRow], 'time_limit'), 1);
    assert.deepEqual(await moves(h, stale.id), ['∅→waiting_deposit', 'waiting_deposit→expired']);
    assert.deepEqual(await moves(h, other.id), ['∅→waiting_deposit', 'waiting_deposit→expired']);
    // Not past its expiry: the table refuses time_limit, nothing is written.
    assert.deepEqual(await moves(h, young.id), ['∅→waiting_deposit']);
    assert.equal((await storedOrder(h, young.id)).version, youngRow.version);
  });

  it('a move that requests a refund goes through apply: refunding with its refund request', async () => {
    const order = await createOrder(h, { refund_address: BTC_REFUND });
    await advance(h, WINDOW_MS);
    assert.ok((await lifecycle().apply(order.id, 'time_limit')).ok);
    // As if a late deposit had been recorded (the worker passes it with the move; the batch has no fields).
    await db().updateTable('orders').set({ amount_from_received: '0.5' }).where('id', '=', order.id).execute();

    const expired = await storedOrder(h, order.id);
    assert.equal(await lifecycle().applyToMany([expired], 'late_deposit'), 1);
    const refunding = await storedOrder(h, order.id);
    assert.equal(refunding.status, 'refunding');
    assert.equal(refunding.version, expired.version + 1);
    assert.equal((await orderEvents(h, order.id)).at(-1)?.reason, 'late_deposit');
    const [refund, ...rest] = await payoutRows(h, order.id);
    assert.equal(rest.length, 0);
    assert.equal(refund?.kind, 'refund');
    assert.equal(refund?.address, BTC_REFUND);
    assertDecimalEq(refund?.amount, '0.5', 'refund amount');
  });
});
