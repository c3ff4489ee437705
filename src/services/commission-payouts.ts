import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import {
  commissionEarned,
  commissionEarnedInPeriod,
  effectivePayoutAddress,
  findCommissionPayout,
  insertCommissionPayout,
  periodBounds,
} from '../db/repositories/commission-payouts-repository.js';
import type { Database } from '../db/schema/index.js';
import type { PayoutRow } from '../db/schema/payouts.js';
import { assetName } from '../domain/asset-name.js';
import { Decimal } from '../domain/money.js';
import { ApiError } from '../errors.js';
import type { CurrencyCatalog } from './currency-catalog.js';

/** A period as the operator names it: a UTC month, `YYYY-MM`, 2000 to 9999. */
export const PERIOD_PATTERN = '^[2-9][0-9]{3}-(0[1-9]|1[0-2])$';

/** One commission payout of a run: made by it (`created`) or found from an earlier run. */
export interface CommissionPayoutLine {
  partner_id: string;
  asset: string;
  amount: string;
  payout_id: string;
  chain: string;
  address: string;
  status: PayoutRow['status'];
  txid: string | null;
  /** True when this run made it; false when an earlier run had (running twice pays once). */
  created: boolean;
}

/** Why a partner's commission in an asset was not paid by this run (nothing failed: there is nothing to pay it with or to). */
export type SkipReason =
  /** The partner has no payout address in force for the currency (set in the cabinet, effective 24 h later). */
  | 'no_payout_address'
  /** The signer pays no live payout on the currency's chain (PAYOUT_SIGNER_CHAINS). */
  | 'no_payout_path'
  /** Less than the currency's smallest unit. */
  | 'below_smallest_unit'
  /** The ledger names an asset the catalog no longer has. */
  | 'unknown_asset';

export interface SkippedLine {
  partner_id: string;
  asset: string;
  /** Earned in the period (exact, as the ledger has it). */
  amount: string;
  reason: SkipReason;
}

export interface CommissionRun {
  period: string;
  payouts: CommissionPayoutLine[];
  skipped: SkippedLine[];
}

/**
 * Commission payouts (docs/contract.md §11.6; docs/decisions.md, "Commission payouts"): for a period that
 * is over, one signer payout per partner and asset of what the ledger credited the partner in
 * that period, to the partner's payout address in force. Idempotent per partner, currency and
 * period: the unique index of migration 0066 holds it, so two runs at once still pay once. The
 * signer checks each amount against the ledger again; the ledger posts each when it is
 * confirmed, in that statement (the database's trigger).
 */
export class CommissionPayouts {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly catalog: Pick<CurrencyCatalog, 'all'>,
    /** PAYOUT_SIGNER_CHAINS: the chains a commission can be paid on. */
    private readonly signerChains: ReadonlySet<string>,
  ) {}

  /** Pays the period (400 when it is not over yet: what it owes is still growing). */
  async pay(period: string): Promise<CommissionRun> {
    if (!new RegExp(PERIOD_PATTERN).test(period)) throw new ApiError('bad_request', 'period must be a month, YYYY-MM');
    const now = this.clock.now();
    const { end } = periodBounds(period);
    if (end > now) throw new ApiError('bad_request', `the period ${period} is not over yet (it ends ${end.toISOString()})`);
    const run: CommissionRun = { period, payouts: [], skipped: [] };
    for (const { partner_id: partnerId, asset, earned } of await commissionEarnedInPeriod(this.db, period)) {
      const skip = (reason: SkipReason): void => void run.skipped.push({ partner_id: partnerId, asset, amount: new Decimal(earned).toFixed(), reason });
      const currency = this.catalog.all().find((row) => assetName(row.coin, row.network) === asset);
      if (currency === undefined) {
        skip('unknown_asset');
        continue;
      }
      const existing = await findCommissionPayout(this.db, partnerId, currency.id, period);
      if (existing !== undefined) {
        run.payouts.push(line(existing, asset, false));
        continue;
      }
      const amount = new Decimal(await commissionEarned(this.db, partnerId, currency.id, period));
      if (amount.lte(0)) {
        skip('below_smallest_unit');
        continue;
      }
      if (!this.signerChains.has(currency.chain)) {
        skip('no_payout_path');
        continue;
      }
      const address = await effectivePayoutAddress(this.db, partnerId, currency.id, now);
      if (address === undefined) {
        skip('no_payout_address');
        continue;
      }
      const created = await insertCommissionPayout(
        this.db,
        { partner_id: partnerId, currency_id: currency.id, period, chain: currency.chain, address: address.address, tag: address.tag, amount: amount.toFixed() },
        now,
      );
      const row = await findCommissionPayout(this.db, partnerId, currency.id, period);
      if (row === undefined) throw new Error('the commission payout just recorded is missing');
      run.payouts.push(line(row, asset, created));
    }
    return run;
  }
}

function line(row: PayoutRow, asset: string, created: boolean): CommissionPayoutLine {
  return {
    partner_id: row.partner_id ?? '',
    asset,
    amount: new Decimal(row.amount).toFixed(),
    payout_id: row.id,
    chain: row.chain,
    address: row.address,
    status: row.status,
    txid: row.txid,
    created,
  };
}
