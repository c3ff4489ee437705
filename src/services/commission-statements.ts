import type { Kysely } from 'kysely';
import { commissionStatementRows, partnerCommissionPayouts } from '../db/repositories/commission-payouts-repository.js';
import type { Database } from '../db/schema/index.js';
import { Decimal } from '../domain/money.js';
import type { CurrencyCatalog } from './currency-catalog.js';

/** One line of a partner's statement: a month and a currency. */
export interface StatementLine {
  period: string;
  coin: string;
  network: string;
  /** Live orders exchanged in the month (not failed) that earned commission in the currency. */
  orders: number;
  /** Their commission, exact. */
  commission: string;
  /** What the commission payout of the month paid (or is paying); null before one is made. */
  paid: string | null;
  /** Its status (requested … confirmed, failed); null before one is made. */
  status: string | null;
  txid: string | null;
  /** The transaction on the currency's explorer, when the catalog has one. */
  txUrl: string | null;
}

/**
 * The cabinet's statements (docs/contract.md §11.6): per month and currency, the orders, their commission
 * and the commission payout of that month (amount, status, txid). Months paid but without
 * commission in the orders' figures (a correction) still show their payout.
 */
export class CommissionStatements {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly catalog: Pick<CurrencyCatalog, 'byId'>,
  ) {}

  async lines(partnerId: string): Promise<StatementLine[]> {
    const [rows, payouts] = await Promise.all([commissionStatementRows(this.db, partnerId), partnerCommissionPayouts(this.db, partnerId)]);
    const key = (period: string, currencyId: string | null) => `${period} ${currencyId ?? ''}`;
    const byKey = new Map(payouts.map((payout) => [key(payout.period ?? '', payout.currency_id), payout]));
    const lines: StatementLine[] = [];
    const seen = new Set<string>();
    const entries = [
      ...rows.map((row) => ({ period: row.period, currencyId: row.currency_id, orders: row.orders, commission: row.commission })),
      ...payouts.filter((p) => !rows.some((row) => key(row.period, row.currency_id) === key(p.period ?? '', p.currency_id))).map((p) => ({ period: p.period ?? '', currencyId: p.currency_id ?? '', orders: 0, commission: '0' })),
    ].sort((a, b) => b.period.localeCompare(a.period));
    for (const entry of entries) {
      const id = key(entry.period, entry.currencyId);
      if (seen.has(id)) continue;
      seen.add(id);
      const currency = this.catalog.byId(entry.currencyId);
      const payout = byKey.get(id);
      const txid = payout?.txid ?? null;
      lines.push({
        period: entry.period,
        coin: currency?.coin ?? '?',
        network: currency?.network ?? '?',
        orders: entry.orders,
        commission: new Decimal(entry.commission).toFixed(),
        paid: payout === undefined ? null : new Decimal(payout.amount).toFixed(),
        status: payout?.status ?? null,
        txid,
        txUrl: txid !== null && currency?.explorer_tx_url != null ? currency.explorer_tx_url.replace('{txid}', encodeURIComponent(txid)) : null,
      });
    }
    return lines;
  }
}
