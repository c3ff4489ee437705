import type { Updateable } from 'kysely';
import type { OrderStatus } from '../../domain/order-status.js';
import type { Db } from '../schema/index.js';
import type { OrderRow, OrderTable } from '../schema/orders.js';

/**
 * The only statements that write an order's `status`. OrderLifecycle (services/order-lifecycle.ts)
 * is their only caller: it decides every move with the lifecycle table and writes the move, its
 * order_events row and any payout request in one transaction. Everything else reads status.
 */

/** A move's writes: the new status plus the fields that go with it. `version` is bumped here. */
export type OrderMove = Omit<Updateable<OrderTable>, 'status' | 'version'> & { status: OrderStatus };

/** The order as the move was decided on: it is written only if it is still at this version. */
export type ExpectedVersion = Pick<OrderRow, 'id' | 'version'>;

/** Applies a move to one order at its expected version; undefined when the order changed meanwhile. */
export async function moveOrder(db: Db, expected: ExpectedVersion, move: OrderMove): Promise<OrderRow | undefined> {
  return db
    .updateTable('orders')
    .set({ ...move, version: expected.version + 1 })
    .where('id', '=', expected.id)
    .where('version', '=', expected.version)
    .returningAll()
    .executeTakeFirst();
}

/** Orders one statement moves at most (two parameters each, far below PostgreSQL's 65535). */
export const MOVE_BATCH_LIMIT = 1000;

/**
 * Applies the same move to many orders, each at its own expected version (up to
 * MOVE_BATCH_LIMIT); returns the orders moved, as they are now (their webhook events show
 * them). An order that changed
 * meanwhile is left out, and so is one another transaction holds (SKIP LOCKED: two sweeps never
 * wait on each other; the next pass takes what this one skipped).
 */
export async function moveOrders(db: Db, expected: readonly ExpectedVersion[], move: OrderMove): Promise<OrderRow[]> {
  if (expected.length === 0) return [];
  if (expected.length > MOVE_BATCH_LIMIT) throw new RangeError(`at most ${MOVE_BATCH_LIMIT} orders per statement, got ${expected.length}`);
  return db
    .updateTable('orders')
    .set((eb) => ({ ...move, version: eb('version', '+', 1) }))
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('orders')
        .select('id')
        .where((w) => w(w.refTuple('id', 'version'), 'in', expected.map((order) => w.tuple(order.id, order.version))))
        .forUpdate()
        .skipLocked(),
    )
    .returningAll()
    .execute();
}
