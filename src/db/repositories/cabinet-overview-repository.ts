import { sql } from 'kysely';
import type { OrderStatus } from '../../domain/order-status.js';
import type { Db } from '../schema/index.js';

/** The cabinet's overview (docs/contract.md §9): a partner's live orders of the last 1, 7 and 30 days. */

export interface StatusCounts {
  status: OrderStatus;
  day: number;
  week: number;
  month: number;
}

export interface CoinVolume {
  coin: string;
  /** Exact decimal text (NUMERIC sums), received amounts of completed orders. */
  day: string;
  week: string;
  month: string;
}

export interface DailyOrders {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  created: number;
  completed: number;
}

export interface OverviewWindows {
  dayStart: Date;
  weekStart: Date;
  monthStart: Date;
}

/** Orders by status created in each window (one scan of the month on the partner's index). */
export async function countOrdersByStatus(db: Db, partnerId: string, windows: OverviewWindows, sandbox = false): Promise<StatusCounts[]> {
  const rows = await db
    .selectFrom('orders')
    .select((eb) => [
      'status',
      eb.fn.countAll<string>().filterWhere('created_at', '>=', windows.dayStart).as('day'),
      eb.fn.countAll<string>().filterWhere('created_at', '>=', windows.weekStart).as('week'),
      eb.fn.countAll<string>().as('month'),
    ])
    .where('partner_id', '=', partnerId)
    .where('sandbox', '=', sandbox)
    .where('created_at', '>=', windows.monthStart)
    .groupBy('status')
    .execute();
  return rows.map((row) => ({ status: row.status, day: Number(row.day), week: Number(row.week), month: Number(row.month) }));
}

/** What completed orders received, per source coin, in each window. */
export async function sumCompletedVolume(db: Db, partnerId: string, windows: OverviewWindows, sandbox = false): Promise<CoinVolume[]> {
  const rows = await db
    .selectFrom('orders')
    .select((eb) => [
      'coin_from',
      eb.fn.coalesce(eb.fn.sum<string>('amount_from_received').filterWhere('created_at', '>=', windows.dayStart), sql<string>`0`).as('day'),
      eb.fn.coalesce(eb.fn.sum<string>('amount_from_received').filterWhere('created_at', '>=', windows.weekStart), sql<string>`0`).as('week'),
      eb.fn.coalesce(eb.fn.sum<string>('amount_from_received'), sql<string>`0`).as('month'),
    ])
    .where('partner_id', '=', partnerId)
    .where('sandbox', '=', sandbox)
    .where('status', '=', 'completed')
    .where('created_at', '>=', windows.monthStart)
    .groupBy('coin_from')
    .orderBy('coin_from')
    .execute();
  return rows.map((row) => ({ coin: row.coin_from, day: String(row.day), week: String(row.week), month: String(row.month) }));
}

/** Orders created and completed per UTC day since `since` (days without orders are absent). */
export async function countOrdersPerDay(db: Db, partnerId: string, since: Date, sandbox = false): Promise<DailyOrders[]> {
  const day = sql<string>`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD')`;
  const rows = await db
    .selectFrom('orders')
    .select((eb) => [
      day.as('day'),
      eb.fn.countAll<string>().as('created'),
      eb.fn.countAll<string>().filterWhere('status', '=', 'completed').as('completed'),
    ])
    .where('partner_id', '=', partnerId)
    .where('sandbox', '=', sandbox)
    .where('created_at', '>=', since)
    .groupBy(day)
    .orderBy(day)
    .execute();
  return rows.map((row) => ({ day: row.day, created: Number(row.created), completed: Number(row.completed) }));
}

/** An order waiting for its partner (the overview's "needs your action"). */
export interface OrderNeedingAction {
  id: string;
  short_id: string;
  created_at: Date;
  refund_hold_until: Date | null;
  refund_address: string | null;
  refund_address_tag: string | null;
  deposit_address_tag: string | null;
  status: OrderStatus;
  status_reason: string | null;
}

/**
 * The partner's refunding orders of one mode that wait for it: a refund held for its choice
 * (until refund_hold_until), or a refund with no address to go to (none, or no tag where the
 * deposit chain routes by memo). Oldest hold first; at most `limit`.
 */
export async function ordersNeedingAction(db: Db, partnerId: string, sandbox: boolean, now: Date, limit: number): Promise<OrderNeedingAction[]> {
  return db
    .selectFrom('orders')
    .select(['id', 'short_id', 'created_at', 'refund_hold_until', 'refund_address', 'refund_address_tag', 'deposit_address_tag', 'status', 'status_reason'])
    .where('partner_id', '=', partnerId)
    .where('sandbox', '=', sandbox)
    .where('status', '=', 'refunding')
    .where((eb) =>
      eb.or([
        eb('refund_hold_until', '>', now),
        eb('refund_address', 'is', null),
        eb.and([eb('deposit_address_tag', 'is not', null), eb('refund_address_tag', 'is', null)]),
      ]),
    )
    .orderBy('refund_hold_until', 'asc')
    .orderBy('created_at', 'asc')
    .limit(limit)
    .execute();
}

/** A chosen period's orders: how many were created in it, how many of those completed, and what those received per source coin. */
export interface PeriodTotals {
  orders: number;
  completed: number;
  /** Exact decimal text (NUMERIC sums), per source coin, sorted by coin. */
  volume: Array<{ coin: string; amount: string }>;
}

/** The partner's orders created in [from, to): counts, and the received amounts of the completed ones per coin. */
export async function periodTotals(db: Db, partnerId: string, from: Date, to: Date, sandbox = false): Promise<PeriodTotals> {
  const scoped = db.selectFrom('orders').where('partner_id', '=', partnerId).where('sandbox', '=', sandbox).where('created_at', '>=', from).where('created_at', '<', to);
  const [counts, volume] = await Promise.all([
    scoped.select((eb) => [eb.fn.countAll<string>().as('orders'), eb.fn.countAll<string>().filterWhere('status', '=', 'completed').as('completed')]).executeTakeFirstOrThrow(),
    scoped
      .select((eb) => ['coin_from', eb.fn.coalesce(eb.fn.sum<string>('amount_from_received'), sql<string>`0`).as('amount')])
      .where('status', '=', 'completed')
      .groupBy('coin_from')
      .orderBy('coin_from')
      .execute(),
  ]);
  return { orders: Number(counts.orders), completed: Number(counts.completed), volume: volume.map((row) => ({ coin: row.coin_from, amount: String(row.amount) })) };
}
