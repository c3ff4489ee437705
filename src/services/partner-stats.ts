import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { commissionByPartnerAndCoin, countOrdersByStatus, type CommissionRow } from '../db/repositories/partner-stats-repository.js';
import {
  countOrdersByStatus as countOverviewStatuses,
  countOrdersPerDay,
  ordersNeedingAction,
  periodTotals,
  sumCompletedVolume,
  type OverviewWindows,
} from '../db/repositories/cabinet-overview-repository.js';
import { findPartner } from '../db/repositories/partners-repository.js';
import type { Database } from '../db/schema/index.js';
import { Decimal } from '../domain/money.js';
import { ORDER_STATUSES, type OrderStatus } from '../domain/order-status.js';
import { ApiError } from '../errors.js';
import { PrimaryReads, type LagTolerantReads } from './replica-reads.js';
import type { KeyAccess } from './partner-access.js';

/** A period asked for: ISO 8601 `from` (inclusive) and `to` (exclusive). */
export interface PeriodQuery {
  from?: string | undefined;
  to?: string | undefined;
}

/** Default period: the last 30 days up to now. */
const DEFAULT_DAYS = 30;
const EARLIEST = new Date('2000-01-01T00:00:00Z');
const LATEST = new Date('9999-12-31T23:59:59.999Z');

/** Longest period one request may cover. */
const MAX_DAYS = 366;

/** A partner's commission over a period, per coin and in all (USD). Decimals stay exact. */
export interface CommissionSummary {
  orders: number;
  volume_usd: Decimal;
  usd: Decimal;
  by_coin: Array<{ coin: string; amount: Decimal; usd: Decimal }>;
}

/**
 * GET /partner/stats and the operator's commission report (docs/contract.md §7.8): the figures the
 * orders recorded at their exchange moment, summed exactly: live orders, or a sandbox key's test
 * orders for its own stats.
 */
export class PartnerStats {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    /** Stats tolerate lag: the read replica when there is one (docs/adr/0055-read-replica.md). */
    private readonly reads: LagTolerantReads = new PrimaryReads(db),
  ) {}

  /** The period, checked: 400 for an unreadable date, an empty or reversed period, or one over a year. */
  period(query: PeriodQuery): { from: Date; to: Date } {
    return checkedPeriod(query, this.clock.now());
  }

  /** GET /partner/stats: the key's mode's orders (docs/contract.md §10.2). */
  async partnerStats(access: Pick<KeyAccess, 'partner' | 'mode'>, from: Date, to: Date) {
    const sandbox = access.mode === 'sandbox';
    const partnerId = access.partner.id;
    const now = this.clock.now();
    const [counts, commissionRows] = await this.reads.read(partnerId, (db) =>
      Promise.all([countOrdersByStatus(db, partnerId, from, to, now, sandbox), commissionByPartnerAndCoin(db, from, to, partnerId, sandbox)]),
    );
    const ordersByStatus = Object.fromEntries(ORDER_STATUSES.map((status: OrderStatus) => [status, counts.get(status) ?? 0]));
    const commission = summarize(commissionRows);
    return { ordersByStatus, commission };
  }

  /** The partner's commission over [from, to) in one mode: what the stats answer, and what the cabinet's overview shows. */
  async commission(partnerId: string, from: Date, to: Date, sandbox = false): Promise<CommissionSummary> {
    return summarize(await this.reads.read(partnerId, (db) => commissionByPartnerAndCoin(db, from, to, partnerId, sandbox)));
  }

  /**
   * What the cabinet's overview shows of the partner's orders in one mode: the orders waiting for
   * the partner (at most `actionMax`), counts by status and completed volume in the day, week and
   * month windows, orders per day since `chartSince`, and the totals of the chosen period. Read
   * from the primary, as the overview has always been.
   */
  async overview(partnerId: string, sandbox: boolean, parts: { now: Date; windows: OverviewWindows; chartSince: Date; actionMax: number; period: { from: Date; to: Date } }) {
    const [waiting, counts, volume, perDay, inPeriod] = await Promise.all([
      ordersNeedingAction(this.db, partnerId, sandbox, parts.now, parts.actionMax),
      countOverviewStatuses(this.db, partnerId, parts.windows, sandbox),
      sumCompletedVolume(this.db, partnerId, parts.windows, sandbox),
      countOrdersPerDay(this.db, partnerId, parts.chartSince, sandbox),
      periodTotals(this.db, partnerId, parts.period.from, parts.period.to, sandbox),
    ]);
    return { waiting, counts, volume, perDay, inPeriod };
  }

  /** Every partner with commission in the period, with its name: what the operator pays out. */
  async commissionReport(from: Date, to: Date) {
    const rows = await this.reads.read(undefined, (db) => commissionByPartnerAndCoin(db, from, to));
    const byPartner = new Map<string, CommissionRow[]>();
    for (const row of rows) byPartner.set(row.partner_id, [...(byPartner.get(row.partner_id) ?? []), row]);
    const report = [];
    for (const [partnerId, partnerRows] of byPartner) {
      const partner = await findPartner(this.db, partnerId);
      report.push({ partnerId, name: partner?.name ?? null, ...summarize(partnerRows) });
    }
    return report;
  }
}

function summarize(rows: readonly CommissionRow[]): CommissionSummary {
  let usd = new Decimal(0);
  let volume = new Decimal(0);
  let orders = 0;
  const byCoin = new Map<string, { amount: Decimal; usd: Decimal }>();
  for (const row of rows) {
    usd = usd.plus(row.usd);
    volume = volume.plus(row.volume_usd);
    orders += row.orders;
    const coin = byCoin.get(row.coin) ?? { amount: new Decimal(0), usd: new Decimal(0) };
    byCoin.set(row.coin, { amount: coin.amount.plus(row.amount), usd: coin.usd.plus(row.usd) });
  }
  return { orders, volume_usd: volume, usd, by_coin: [...byCoin.entries()].map(([coin, sums]) => ({ coin, ...sums })) };
}

/**
 * A period asked for, checked (400 for an unreadable date, an empty or reversed period, or one
 * over a year): `to` defaults to now included, `from` to 30 days before `to`. The partner's
 * stats, the commission report and the ledger's entries read periods alike.
 */
export function checkedPeriod(query: PeriodQuery, now: Date): { from: Date; to: Date } {
  // Without `to`, up to now included (orders exchanged this very millisecond count).
  const to = query.to === undefined ? new Date(now.getTime() + 1) : parseTime('to', query.to);
  const from = query.from === undefined ? new Date(to.getTime() - DEFAULT_DAYS * 86_400_000) : parseTime('from', query.from);
  if (from >= to) throw new ApiError('bad_request', 'from must be before to');
  if (to.getTime() - from.getTime() > MAX_DAYS * 86_400_000) throw new ApiError('bad_request', `a period covers at most ${MAX_DAYS} days`);
  return { from, to };
}

/** An ISO 8601 date or time from a query, checked (400). */
export function parseTime(name: string, text: string): Date {
  // The route's schema checked it is an ISO 8601 date-time (as GET /partner/orders takes them).
  const time = new Date(text);
  if (Number.isNaN(time.getTime())) throw new ApiError('bad_request', `${name} must be an ISO 8601 date or time`);
  // The database keeps no time before year 1 (the fuzzer found one: a 500); nothing exists before 2000 anyway.
  if (time < EARLIEST || time > LATEST) throw new ApiError('bad_request', `${name} must lie between 2000 and 9999`);
  return time;
}
