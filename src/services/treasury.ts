import type { Kysely } from 'kysely';
import { Gauge } from 'prom-client';
import type { Clock } from '../clock.js';
import { hotWalletReadings } from '../db/repositories/hot-wallet-balance-repository.js';
import { accountBalances, payoutsInFlight, postLedger } from '../db/repositories/ledger-repository.js';
import type { Database } from '../db/schema/index.js';
import type { LedgerAccount, LedgerAssets, LedgerPosting } from '../domain/ledger.js';
import { Decimal } from '../domain/money.js';
import type { Metrics } from '../metrics.js';

/**
 * What the chain says the hot wallet holds, per asset (the signer reads its addresses through
 * the node). An asset without a reading is missing from the map: its drift is then unknown.
 */
export interface ChainHoldings {
  read(): Promise<ReadonlyMap<string, Decimal>>;
}

/** No chain readings at all: without PAYOUT_SIGNER_CHAINS no hot wallet is on any chain (the simulator pays). */
export const NO_CHAIN_READINGS: ChainHoldings = { read: () => Promise.resolve(new Map()) };

/**
 * A reading older than this is no reading: a stopped signer (its own alert, SignerStopped,
 * says so) must not turn every payout since into drift. Five signer passes at the slowest.
 */
export const CHAIN_READING_MAX_AGE_MS = 5 * 60_000;

/**
 * What the signer publishes after each pass (hot_wallet_balances, migration 0054): per currency
 * what its hot wallet can sign with now, with what its own stored transactions spend already
 * taken out, so payouts in flight are out of it, as pending_payouts says.
 */
export class SignerChainHoldings implements ChainHoldings {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly assets: Pick<LedgerAssets, 'assetOf'>,
    private readonly clock: Clock,
  ) {}

  async read(): Promise<ReadonlyMap<string, Decimal>> {
    const oldest = this.clock.now().getTime() - CHAIN_READING_MAX_AGE_MS;
    const holdings = new Map<string, Decimal>();
    for (const row of await hotWalletReadings(this.db)) {
      if (row.read_at.getTime() < oldest) continue;
      const asset = this.assets.assetOf(row.currency_id);
      holdings.set(asset, (holdings.get(asset) ?? new Decimal(0)).plus(row.spendable));
    }
    return holdings;
  }
}

/** docs/contract.md §11.5: one asset's line of GET /admin/v1/treasury, exact decimals as strings. */
export interface TreasuryLine {
  /** The ledger's live hot_wallet balance. */
  holdings_ledger: string;
  /** The chain's, as last read; null without a reading. */
  holdings_chain: string | null;
  /** holdings_chain − (holdings_ledger − pending_payouts): 0 when reconciled; null without a reading. */
  drift: string | null;
  /** Signer payouts and refunds (and their fees) that left the hot wallet on chain and are not yet posted. */
  pending_payouts: string;
  /** Live partner_commission: what partners are owed. */
  commission_owed: string;
  /** Live revenue, credit positive: what the conversions left the exchange with in the asset. */
  revenue: string;
  /** The same figures in USD at the asset's current consensus price; null without a fresh price. */
  usd: TreasuryUsd | null;
}

/**
 * A line's figures valued in USD, to the cent (half-even): a valuation for reading, never booked;
 * the books stay in the asset's own units.
 */
export interface TreasuryUsd {
  /** USD per whole unit of the asset, exact as the price feeds agreed on it. */
  price: string;
  holdings_ledger: string;
  holdings_chain: string | null;
  pending_payouts: string;
  commission_owed: string;
  revenue: string;
}

/** The USD price of one whole unit of an asset, when a fresh one exists. */
export type AssetUsdPrice = (asset: string) => Decimal | undefined;

function inUsd(price: Decimal, amount: Decimal): string {
  return price.times(amount).toDecimalPlaces(2, Decimal.ROUND_HALF_EVEN).toFixed(2);
}

/** How often the reconciliation runs where there is a hot wallet to read, ms. */
export const TREASURY_REFRESH_MS = 60_000;

/** The accounts an operator's transfer moves coins between (the hot wallet and where they come from or go). */
export const TRANSFER_ACCOUNTS = ['hot_wallet', 'deposits', 'equity'] as const satisfies readonly LedgerAccount[];
export type TransferAccount = (typeof TRANSFER_ACCOUNTS)[number];

export interface Transfer {
  asset: string;
  from: TransferAccount;
  to: TransferAccount;
  /** Positive exact decimal. */
  amount: Decimal;
  memo: string;
  actor: string;
}

/**
 * The treasury (docs/contract.md §11.5): per asset what the ledger says the hot wallet holds,
 * what the chain says, what is in flight between the two, and the drift that none of it
 * explains (`treasury_drift{asset}`, alerted on in ops/prometheus/treasury-alerts.yml); beside them what is
 * owed to partners and what the conversions earned. Recomputed on each read and, where a chain
 * can be read, every TREASURY_REFRESH_MS for the gauge.
 */
export class Treasury {
  private drifts = new Map<string, Decimal>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly assets: LedgerAssets,
    private readonly chain: ChainHoldings,
    metrics: Metrics,
    private readonly onError: (error: unknown) => void,
    private readonly usdPrice: AssetUsdPrice = () => undefined,
  ) {
    const current = (): ReadonlyMap<string, Decimal> => this.drifts;
    new Gauge({
      name: 'treasury_drift',
      help:
        'Hot wallet on chain minus (the ledger hot_wallet minus payouts in flight), per asset, in its units: ' +
        '0 when reconciled, negative when coins left that no payout explains. Only assets with a chain reading.',
      labelNames: ['asset'],
      registers: [metrics.registry],
      aggregator: 'first',
      collect() {
        this.reset();
        // The asset's own units: a float here only for the exposition, never in the books.
        for (const [asset, drift] of current()) this.set({ asset }, drift.toNumber());
      },
    });
  }

  /** Every asset the ledger, the chain or a payout in flight names, in name order. */
  async view(): Promise<Record<string, TreasuryLine>> {
    const [balances, chain, inFlight] = await Promise.all([accountBalances(this.db), this.chain.read(), payoutsInFlight(this.db)]);
    const zero = new Decimal(0);
    const lines = new Map<string, { ledger: Decimal; pending: Decimal; owed: Decimal; revenue: Decimal }>();
    const line = (asset: string) => {
      let found = lines.get(asset);
      if (found === undefined) {
        found = { ledger: zero, pending: zero, owed: zero, revenue: zero };
        lines.set(asset, found);
      }
      return found;
    };
    for (const row of balances) {
      // Live accounts only: the sandbox's hot wallet is the simulator's, on no chain.
      const target = row.account === 'hot_wallet' ? 'ledger' : row.account === 'partner_commission' ? 'owed' : row.account === 'revenue' ? 'revenue' : undefined;
      if (target === undefined) continue;
      const entry = line(row.asset);
      // Liabilities and income are credits (negative): shown as the positive sums they are.
      entry[target] = target === 'ledger' ? new Decimal(row.balance) : new Decimal(row.balance).negated();
    }
    for (const row of inFlight) {
      const asset = line(this.assets.assetOf(row.currency_id));
      asset.pending = asset.pending.plus(row.amount);
      const feeAsset = line(this.assets.feeAssetOf(row.chain));
      feeAsset.pending = feeAsset.pending.plus(row.fee);
    }
    for (const asset of chain.keys()) line(asset);
    const drifts = new Map<string, Decimal>();
    const view: Record<string, TreasuryLine> = {};
    for (const asset of [...lines.keys()].sort()) {
      const { ledger, pending, owed, revenue } = line(asset);
      const onChain = chain.get(asset);
      const drift = onChain?.minus(ledger.minus(pending));
      if (drift !== undefined) drifts.set(asset, drift);
      const price = this.usdPrice(asset);
      view[asset] = {
        holdings_ledger: ledger.toFixed(),
        holdings_chain: onChain?.toFixed() ?? null,
        drift: drift?.toFixed() ?? null,
        pending_payouts: pending.toFixed(),
        commission_owed: owed.toFixed(),
        revenue: revenue.toFixed(),
        usd:
          price === undefined
            ? null
            : {
                price: price.toFixed(),
                holdings_ledger: inUsd(price, ledger),
                holdings_chain: onChain === undefined ? null : inUsd(price, onChain),
                pending_payouts: inUsd(price, pending),
                commission_owed: inUsd(price, owed),
                revenue: inUsd(price, revenue),
              },
      };
    }
    this.drifts = drifts;
    return view;
  }

  /**
   * An operator's transfer (kind `transfer`): coins into the hot wallet from the operator's
   * capital (`equity`) or swept from the deposit addresses (`deposits`), or back. Two lines, to
   * debited and from credited, so the ledger follows what the operator did on chain.
   */
  async transfer(transfer: Transfer): Promise<{ transaction_id: string; created_at: Date; posting: LedgerPosting }> {
    const posting: LedgerPosting = {
      kind: 'transfer',
      order_id: null,
      memo: transfer.memo,
      actor: transfer.actor,
      entries: [
        { account: transfer.to, asset: transfer.asset, amount: transfer.amount.toFixed(), order_id: null, partner_id: null },
        { account: transfer.from, asset: transfer.asset, amount: transfer.amount.negated().toFixed(), order_id: null, partner_id: null },
      ],
    };
    const now = this.clock.now();
    const [id] = await this.db.transaction().execute((tx) => postLedger(tx, [posting], now));
    if (id === undefined) throw new Error('the transfer was not posted');
    return { transaction_id: id, created_at: now, posting };
  }

  /** The reconciliation on a timer, for the gauge; only where a chain can be read. */
  async start(readsChains: boolean): Promise<void> {
    if (!readsChains) return;
    await this.view().catch(this.onError);
    this.timer = setInterval(() => void this.view().catch(this.onError), TREASURY_REFRESH_MS).unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
