import type { OrderStatus } from '../../domain/order-status.js';
import type { Db } from '../schema/index.js';

/**
 * What waits for an operator (the console's attention queue): each list oldest first, at most
 * `limit`, across every partner and both modes (the sandbox flag says which).
 */

export interface AttentionOrder {
  id: string;
  short_id: string;
  partner_id: string;
  partner_name: string;
  sandbox: boolean;
  status: OrderStatus;
  status_reason: string | null;
  refund_hold_until: Date | null;
  refund_address: string | null;
  created_at: Date;
  updated_at: Date;
}

const ORDER_COLUMNS = [
  'o.id',
  'o.short_id',
  'o.partner_id',
  'p.name as partner_name',
  'o.sandbox',
  'o.status',
  'o.status_reason',
  'o.refund_hold_until',
  'o.refund_address',
  'o.created_at',
  'o.updated_at',
] as const;

/** Refunds held for a choice (until refund_hold_until), soonest deadline first. */
export async function heldRefunds(db: Db, now: Date, limit: number): Promise<AttentionOrder[]> {
  return db
    .selectFrom('orders as o')
    .innerJoin('partners as p', 'p.id', 'o.partner_id')
    .select(ORDER_COLUMNS)
    .where('o.status', '=', 'refunding')
    .where('o.refund_hold_until', '>', now)
    .orderBy('o.refund_hold_until')
    .limit(limit)
    .execute();
}

/** Refunds with nowhere to go: no refund address, or no tag where the deposit chain routes by memo. */
export async function refundsWithoutAddress(db: Db, now: Date, limit: number): Promise<AttentionOrder[]> {
  return db
    .selectFrom('orders as o')
    .innerJoin('partners as p', 'p.id', 'o.partner_id')
    .select(ORDER_COLUMNS)
    .where('o.status', '=', 'refunding')
    .where((eb) => eb.or([eb('o.refund_hold_until', 'is', null), eb('o.refund_hold_until', '<=', now)]))
    .where((eb) => eb.or([eb('o.refund_address', 'is', null), eb.and([eb('o.deposit_address_tag', 'is not', null), eb('o.refund_address_tag', 'is', null)])]))
    .orderBy('o.updated_at')
    .limit(limit)
    .execute();
}

/** Orders in exchanging or sending since before `since` (they should have moved on by now). */
export async function stuckOrders(db: Db, since: Date, limit: number): Promise<AttentionOrder[]> {
  return db
    .selectFrom('orders as o')
    .innerJoin('partners as p', 'p.id', 'o.partner_id')
    .select(ORDER_COLUMNS)
    .where('o.status', 'in', ['exchanging', 'sending'])
    .where('o.updated_at', '<', since)
    .orderBy('o.updated_at')
    .limit(limit)
    .execute();
}

export interface AttentionPayout {
  id: string;
  /** Null for a commission payout, which belongs to a partner and a period, not an order. */
  order_id: string | null;
  short_id: string | null;
  partner_name: string;
  kind: 'payout' | 'refund' | 'commission';
  chain: string;
  amount: string;
  status: string;
  failure_reason: string | null;
  created_at: Date;
  updated_at: Date | null;
}

/**
 * Payouts in `status` whose order is not final yet (a failed payout of a failed order is
 * resolved), and commission payouts (no order: the partner is the payout's own).
 */
export async function payoutsIn(db: Db, status: 'failed' | 'awaiting_approval', limit: number): Promise<AttentionPayout[]> {
  let query = db
    .selectFrom('payouts as y')
    .leftJoin('orders as o', 'o.id', 'y.order_id')
    .innerJoin('partners as p', (join) => join.on((eb) => eb('p.id', '=', eb.fn.coalesce('o.partner_id', 'y.partner_id'))))
    .select(['y.id', 'y.order_id', 'o.short_id', 'p.name as partner_name', 'y.kind', 'y.chain', 'y.amount', 'y.status', 'y.failure_reason', 'y.created_at', 'y.updated_at'])
    .where('y.status', '=', status);
  if (status === 'failed') query = query.where((eb) => eb.or([eb('o.status', 'is', null), eb('o.status', 'not in', ['completed', 'refunded', 'failed', 'expired'])]));
  const rows = await query.orderBy('y.created_at').limit(limit).execute();
  return rows.map((row) => ({ ...row, amount: String(row.amount) }));
}

export interface AttentionEndpoint {
  id: string;
  partner_id: string;
  partner_name: string;
  url: string;
  enabled: boolean;
  disabled_reason: string | null;
  failing_since: Date | null;
  updated_at: Date;
}

/**
 * Endpoints failing now (still enabled), or disabled by the service after failing for days. One
 * the operator disabled has been dealt with: it leaves the queue (the partner's page still shows
 * it, failing since when, with the switch to enable it).
 */
export async function failingEndpoints(db: Db, limit: number): Promise<AttentionEndpoint[]> {
  return db
    .selectFrom('webhook_endpoints as w')
    .innerJoin('partners as p', 'p.id', 'w.partner_id')
    .select(['w.id', 'w.partner_id', 'p.name as partner_name', 'w.url', 'w.enabled', 'w.disabled_reason', 'w.failing_since', 'w.updated_at'])
    .where((eb) => eb.or([eb.and([eb('w.enabled', '=', true), eb('w.failing_since', 'is not', null)]), eb('w.disabled_reason', '=', 'failing')]))
    .orderBy('w.failing_since')
    .limit(limit)
    .execute();
}
