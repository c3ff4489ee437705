import { sql } from 'kysely';
import type { OrderStatus } from '../../domain/order-status.js';
import type { Db } from '../schema/index.js';
import { statusAsReadSql } from './order-status-sql.js';

/**
 * Partner statistics and the commission report (docs/contract.md §7.8): one mode's orders (live unless
 * asked: a sandbox key's stats are its test orders', docs/contract.md §10.2), the other apart. Counts are by creation time; volume and commission by the exchange moment, when they
 * were recorded, over orders that did not end failed (a payout that failed for good earns
 * nothing). Sums are exact NUMERIC sums of the recorded figures, returned as their text.
 */

/** Orders created in [from, to) by status (as read at `now`: a waiting order past its expiry is expired). */
export async function countOrdersByStatus(db: Db, partnerId: string, from: Date, to: Date, now: Date, sandbox = false): Promise<Map<OrderStatus, number>> {
  const rows = await db
    .selectFrom('orders')
    .select([
      (eb) => statusAsReadSql(eb, now).as('status'),
      (eb) => eb.fn.countAll<string>().as('count'),
    ])
    .where('partner_id', '=', partnerId)
    .where('sandbox', '=', sandbox)
    .where('created_at', '>=', from)
    .where('created_at', '<', to)
    .groupBy(sql`1`)
    .execute();
  return new Map(rows.map((row) => [row.status, Number(row.count)]));
}

/** One partner's commission in one coin over a period. */
export interface CommissionRow {
  partner_id: string;
  coin: string;
  /** Orders exchanged in the period (not failed). */
  orders: number;
  /** Sum of partner_fee, in `coin`. */
  amount: string;
  /** Sum of partner_fee_usd. */
  usd: string;
  /** Sum of volume_usd. */
  volume_usd: string;
}

/** Commission per partner and coin_to over exchange moments in [from, to); one partner, or all; live orders unless `sandbox`. */
export async function commissionByPartnerAndCoin(db: Db, from: Date, to: Date, partnerId?: string, sandbox = false): Promise<CommissionRow[]> {
  let query = db
    .selectFrom('orders')
    .select([
      'partner_id',
      'coin_to as coin',
      (eb) => eb.fn.countAll<string>().as('orders'),
      sql<string>`sum(partner_fee)::text`.as('amount'),
      sql<string>`sum(partner_fee_usd)::text`.as('usd'),
      sql<string>`sum(volume_usd)::text`.as('volume_usd'),
    ])
    .where('exchanged_at', 'is not', null)
    .where('sandbox', '=', sandbox)
    .where('status', '!=', 'failed')
    .where('exchanged_at', '>=', from)
    .where('exchanged_at', '<', to);
  if (partnerId !== undefined) query = query.where('partner_id', '=', partnerId);
  const rows = await query.groupBy(['partner_id', 'coin_to']).orderBy('partner_id').orderBy('coin_to').execute();
  return rows.map((row) => ({ ...row, orders: Number(row.orders) }));
}
