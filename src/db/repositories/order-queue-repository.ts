import { sql, type ExpressionBuilder } from 'kysely';
import type { Database, Db } from '../schema/index.js';
import type { OrderRow } from '../schema/orders.js';
import type { OrderStatus } from '../../domain/order-status.js';

/**
 * The orders table as the lifecycle worker's queue: which orders the chain watchers look at,
 * which are due for a step (leased), retries and the worker's lag. None of these write `status`:
 * moves go through OrderLifecycle (order-moves-repository.ts).
 */

/** What a chain watcher needs to know about an order it looks at. */
export interface WatchedOrderRow {
  id: string;
  chain: string;
  deposit_address: string;
  deposit_address_tag: string | null;
  status: OrderStatus;
  deposit_txid: string | null;
  deposit_confirmations: number | null;
  created_at: Date;
  /** A sandbox order (docs/contract.md §7.6): only the simulator may look at it. */
  sandbox: boolean;
}

/**
 * Orders whose deposit address is watched: waiting or confirming, plus expired ones without a
 * deposit whose expiry is later than `lateSince` (a late deposit is still noticed and refunded).
 */
export async function findWatchedOrders(db: Db, lateSince: Date): Promise<WatchedOrderRow[]> {
  return db
    .selectFrom('orders as o')
    .innerJoin('currencies as c', 'c.id', 'o.currency_from_id')
    .select(['o.id', 'c.chain', 'o.deposit_address', 'o.deposit_address_tag', 'o.status', 'o.deposit_txid', 'o.deposit_confirmations', 'o.created_at', 'o.sandbox'])
    .where((eb) =>
      eb.or([
        eb('o.status', 'in', ['waiting_deposit', 'confirming']),
        eb.and([eb('o.status', '=', 'expired'), eb('o.deposit_txid', 'is', null), eb('o.expires_at', '>', lateSince)]),
      ]),
    )
    .execute();
}

/** What the lifecycle needs to decide an order's move without reading it again. */
export type MovableOrder = Pick<
  OrderRow,
  'id' | 'status' | 'version' | 'expires_at' | 'refund_address' | 'refund_address_tag' | 'deposit_address_tag' | 'refund_hold_until'
>;

/** Orders still waiting for their deposit at or after expires_at: what the expiry sweep moves. */
export async function findOrdersPastExpiry(db: Db, now: Date): Promise<MovableOrder[]> {
  return db
    .selectFrom('orders')
    .select(['id', 'status', 'version', 'expires_at', 'refund_address', 'refund_address_tag', 'deposit_address_tag', 'refund_hold_until'])
    .where('status', '=', 'waiting_deposit')
    .where('expires_at', '<=', now)
    .execute();
}

/**
 * An order in refunding has work for the worker when its refund was requested (the request is
 * in payouts) or its hold is to run out; one waiting for a refund address has none until the
 * partner sets it (docs/contract.md §7.5), so it is neither leased nor counted as lag.
 */
function hasWorkToDo(eb: ExpressionBuilder<Database, 'orders'>) {
  return eb.or([
    eb('orders.status', '!=', 'refunding'),
    eb('orders.refund_hold_until', 'is not', null),
    eb.exists(
      eb
        .selectFrom('payouts')
        .select(sql<number>`1`.as('one'))
        .whereRef('payouts.order_id', '=', 'orders.id')
        .where('payouts.kind', '=', 'refund'),
    ),
  ]);
}

/**
 * Leases up to `limit` orders in `statuses` whose step is due (no backoff pending) and that no
 * live lease holds, oldest update first, until `lockedUntil`. FOR UPDATE SKIP LOCKED: two workers
 * never take the same order.
 */
export async function claimDueOrders(
  db: Db,
  statuses: readonly OrderStatus[],
  now: Date,
  lockedUntil: Date,
  limit: number,
): Promise<OrderRow[]> {
  return db
    .updateTable('orders')
    .set({ locked_until: lockedUntil })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('orders')
        .select('id')
        .where('status', 'in', [...statuses])
        .where((w) => w.or([w('next_attempt_at', 'is', null), w('next_attempt_at', '<=', now)]))
        .where((w) => w.or([w('locked_until', 'is', null), w('locked_until', '<', now)]))
        .where(hasWorkToDo)
        .orderBy('updated_at')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .returningAll()
    .execute();
}

/**
 * Records a failed attempt of the order's current step and when to try again, and releases the
 * lease; only if the order is still at `version` (a move in between wins). No status change.
 */
export async function scheduleRetry(db: Db, order: Pick<OrderRow, 'id' | 'version'>, attempts: number, nextAttemptAt: Date): Promise<void> {
  await db
    .updateTable('orders')
    .set({ attempts, next_attempt_at: nextAttemptAt, locked_until: null })
    .where('id', '=', order.id)
    .where('version', '=', order.version)
    .execute();
}

/** Since when the oldest step of an order in `statuses` has been due; null when none is. */
export async function oldestDueSince(db: Db, statuses: readonly OrderStatus[]): Promise<Date | null> {
  const oldest = await db
    .selectFrom('orders')
    .select((eb) => eb.fn.min(sql<Date>`coalesce(next_attempt_at, updated_at)`).as('since'))
    .where('status', 'in', [...statuses])
    .where(hasWorkToDo)
    .executeTakeFirst();
  const since = oldest?.since ?? null;
  return since === null ? null : new Date(since);
}

/**
 * Makes the step of an order in exchanging or sending due now, with a fresh retry budget (the
 * operator continues a stuck order); only while no worker holds its lease. No status change.
 * The order as it is now, or undefined when it was not in those statuses or was leased.
 */
export async function makeStepDueNow(db: Db, id: string, now: Date): Promise<OrderRow | undefined> {
  return db
    .updateTable('orders')
    .set({ attempts: 0, next_attempt_at: null })
    .where('id', '=', id)
    .where('status', 'in', ['exchanging', 'sending'])
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
    .returningAll()
    .executeTakeFirst();
}
