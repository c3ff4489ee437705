import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { accountBalances, ledgerLines, type LedgerLineRow } from '../db/repositories/ledger-repository.js';
import type { Database } from '../db/schema/index.js';
import { csvField, csvRecord } from '../domain/csv.js';
import { Decimal } from '../domain/money.js';
import { checkedPeriod, parseTime, type PeriodQuery } from './partner-stats.js';

/** One account's balance in one asset (debit positive), exact. */
export interface TrialBalanceLine {
  account: string;
  asset: string;
  balance: string;
}

/** docs/contract.md §11.5: every account's balance, and per asset the total, which is "0" in balanced books. */
export interface TrialBalance {
  accounts: TrialBalanceLine[];
  totals: Record<string, string>;
}

/** A line of the export: its ledger transaction's time, kind and memo beside it. */
export type LedgerLine = Omit<LedgerLineRow, 'created_at' | 'amount'> & { created_at: string; amount: string };

/** The columns of the CSV export, in order (the JSON's keys). */
export const LEDGER_CSV_COLUMNS = ['created_at', 'transaction_id', 'kind', 'account', 'asset', 'amount', 'order_id', 'partner_id', 'memo'] as const;

/**
 * The operator's reads of the ledger (docs/contract.md §11.5): the trial balance, at any moment, and the
 * lines of a period for the accountant, as JSON or CSV. Amounts are the database's exact sums,
 * written without trailing zeros.
 */
export class LedgerReports {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** `at` as the query gave it (400 when unreadable): the ledger transactions made at or before it count. */
  moment(at: string | undefined): Date | undefined {
    return at === undefined ? undefined : parseTime('at', at);
  }

  /** The period of an export: `from` inclusive, `to` exclusive, as the commission report reads it. */
  period(query: PeriodQuery): { from: Date; to: Date } {
    return checkedPeriod(query, this.clock.now());
  }

  async trialBalance(at?: Date): Promise<TrialBalance> {
    const rows = await accountBalances(this.db, at);
    const totals = new Map<string, Decimal>();
    for (const row of rows) totals.set(row.asset, (totals.get(row.asset) ?? new Decimal(0)).plus(row.balance));
    return {
      accounts: rows.map((row) => ({ account: row.account, asset: row.asset, balance: new Decimal(row.balance).toFixed() })),
      totals: Object.fromEntries([...totals].map(([asset, total]) => [asset, total.toFixed()])),
    };
  }

  async lines(from: Date, to: Date): Promise<LedgerLine[]> {
    return (await ledgerLines(this.db, from, to)).map((row) => ({ ...row, created_at: row.created_at.toISOString(), amount: new Decimal(row.amount).toFixed() }));
  }

  /** The lines as CSV, with a header record. */
  static csv(lines: readonly LedgerLine[]): string {
    let text = csvRecord(LEDGER_CSV_COLUMNS);
    for (const line of lines) text += csvRecord(LEDGER_CSV_COLUMNS.map((column) => csvField(line[column], column === 'memo' ? 'text' : 'value')));
    return text;
  }
}
