import { sql } from 'kysely';
import type { Db } from '../schema/index.js';
import type { PartnerPayoutAddressRow, PayoutRow } from '../schema/payouts.js';

/**
 * Commission payouts and partners' payout addresses (migration 0066). What a partner earned in
 * a period is read from the ledger, through the database's own `commission_earned()`: the same
 * function the signer's check reads, so the amount asked and the amount checked are one.
 */

/** A partner's commission credited in a period in one asset (live accounts), before rounding. */
export interface EarnedRow {
  partner_id: string;
  asset: string;
  /** Credited to partner_commission in the period, positive. */
  earned: string;
}

/** Start (inclusive) and end (exclusive) of a `YYYY-MM` period, UTC. */
export function periodBounds(period: string): { start: Date; end: Date } {
  const [year, month] = period.split('-').map(Number) as [number, number];
  return { start: new Date(Date.UTC(year, month - 1, 1)), end: new Date(Date.UTC(year, month, 1)) };
}

/** Every partner and asset with commission credited in the period (net of corrections, positive only), by partner and asset. */
export async function commissionEarnedInPeriod(db: Db, period: string): Promise<EarnedRow[]> {
  const { start, end } = periodBounds(period);
  return db
    .selectFrom('ledger_entries as e')
    .innerJoin('ledger_transactions as t', 't.id', 'e.transaction_id')
    .select([sql<string>`e.partner_id`.as('partner_id'), 'e.asset', sql<string>`-sum(e.amount)`.as('earned')])
    .where('e.account', '=', 'partner_commission')
    .where('t.kind', '!=', 'commission_payout')
    .where('t.created_at', '>=', start)
    .where('t.created_at', '<', end)
    .groupBy(['e.partner_id', 'e.asset'])
    .having(sql`sum(e.amount)`, '<', 0)
    .orderBy('e.partner_id')
    .orderBy('e.asset')
    .execute();
}

/** What the partner earned in the period in the currency, rounded down to its decimals (what is paid and what the signer checks). */
export async function commissionEarned(db: Db, partnerId: string, currencyId: string, period: string): Promise<string> {
  const result = await sql<{ earned: string | null }>`select commission_earned(${partnerId}::uuid, ${currencyId}::uuid, ${period}) as earned`.execute(db);
  return result.rows[0]?.earned ?? '0';
}

export async function findCommissionPayout(db: Db, partnerId: string, currencyId: string, period: string): Promise<PayoutRow | undefined> {
  return db
    .selectFrom('payouts')
    .selectAll()
    .where('kind', '=', 'commission')
    .where('partner_id', '=', partnerId)
    .where('currency_id', '=', currencyId)
    .where('period', '=', period)
    .executeTakeFirst();
}

export interface NewCommissionPayout {
  partner_id: string;
  currency_id: string;
  period: string;
  chain: string;
  address: string;
  tag: string | null;
  amount: string;
}

/**
 * Records a commission payout for the signer, unless one exists for the partner, currency and
 * period (the unique index decides, whatever runs at once). True when this call made it.
 */
export async function insertCommissionPayout(db: Db, payout: NewCommissionPayout, now: Date): Promise<boolean> {
  const inserted = await db
    .insertInto('payouts')
    .values({ ...payout, kind: 'commission', order_id: null, payer: 'signer', created_at: now, updated_at: now })
    .onConflict((conflict) => conflict.columns(['partner_id', 'currency_id', 'period']).where('kind', '=', 'commission').doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** The partner's commission payouts, newest period first. */
export async function partnerCommissionPayouts(db: Db, partnerId: string): Promise<PayoutRow[]> {
  return db.selectFrom('payouts').selectAll().where('kind', '=', 'commission').where('partner_id', '=', partnerId).orderBy('period', 'desc').orderBy('created_at').execute();
}

/** The address in force at `at`: the newest not cancelled and effective by then. */
export async function effectivePayoutAddress(db: Db, partnerId: string, currencyId: string, at: Date): Promise<PartnerPayoutAddressRow | undefined> {
  return db
    .selectFrom('partner_payout_addresses')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .where('currency_id', '=', currencyId)
    .where('cancelled_at', 'is', null)
    .where('effective_at', '<=', at)
    .orderBy('effective_at', 'desc')
    .orderBy('requested_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The partner's addresses not cancelled: in force, pending, and older ones (the caller picks). */
export async function partnerPayoutAddresses(db: Db, partnerId: string): Promise<PartnerPayoutAddressRow[]> {
  return db
    .selectFrom('partner_payout_addresses')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .where('cancelled_at', 'is', null)
    .orderBy('currency_id')
    .orderBy('effective_at', 'desc')
    .execute();
}

/** Cancels the partner's pending changes of a currency (effective after `at`); returns how many. */
export async function cancelPendingPayoutAddresses(db: Db, partnerId: string, currencyId: string, at: Date, by: string | null): Promise<number> {
  const result = await db
    .updateTable('partner_payout_addresses')
    .set({ cancelled_at: at, cancelled_by: by })
    .where('partner_id', '=', partnerId)
    .where('currency_id', '=', currencyId)
    .where('cancelled_at', 'is', null)
    .where('effective_at', '>', at)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function insertPayoutAddress(
  db: Db,
  row: { partner_id: string; currency_id: string; address: string; tag: string | null; requested_by: string | null; requested_at: Date; effective_at: Date },
): Promise<PartnerPayoutAddressRow> {
  return db.insertInto('partner_payout_addresses').values(row).returningAll().executeTakeFirstOrThrow();
}

/** One month and currency of a partner's live commission: orders exchanged in it and their commission. */
export interface StatementRow {
  period: string;
  currency_id: string;
  orders: number;
  /** Sum of partner_fee, in the currency. */
  commission: string;
}

/** The partner's live commission per UTC month and coin_to, by exchange moment (orders not failed), newest month first. */
export async function commissionStatementRows(db: Db, partnerId: string): Promise<StatementRow[]> {
  const period = sql<string>`to_char(exchanged_at at time zone 'UTC', 'YYYY-MM')`;
  const rows = await db
    .selectFrom('orders')
    .select([period.as('period'), 'currency_to_id as currency_id', (eb) => eb.fn.countAll<string>().as('orders'), sql<string>`sum(partner_fee)::text`.as('commission')])
    .where('partner_id', '=', partnerId)
    .where('sandbox', '=', false)
    .where('exchanged_at', 'is not', null)
    .where('status', '!=', 'failed')
    .where('partner_fee', '>', '0')
    .groupBy([period, 'currency_to_id'])
    .orderBy(period, 'desc')
    .execute();
  return rows.map((row) => ({ ...row, orders: Number(row.orders) }));
}
