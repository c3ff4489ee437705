import { chainReadings, currencyLiquidity } from '../db/repositories/hot-wallet-balance-repository.js';
import type { Db } from '../db/schema/index.js';
import type { CurrencyRow } from '../db/schema/currencies.js';
import { Decimal } from '../domain/money.js';
import { assetName } from '../domain/asset-name.js';
import type { HotWalletGauges } from './hot-wallet-gauges.js';

/** What the hot wallets can pay is read at least this often by each process (docs/contract.md §11.7: cached at most 15 s). */
export const LIQUIDITY_MAX_REFRESH_MS = 15_000;

const ZERO = new Decimal(0);

/**
 * What the signer's hot wallets can still pay per currency (docs/contract.md §11.7): the signer's last
 * reading (hot_wallet_balances) minus the payouts still waiting for a signature. Read on a timer,
 * so a quote answers from memory; a currency of a signer chain that the signer never published
 * can pay nothing yet. Live orders only: the sandbox and the simulator's chains are not checked.
 */
export class HotWalletLiquidity {
  private available = new Map<string, Decimal>();
  private illiquid: ReadonlySet<string> = new Set();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    /** The chains the signer pays (PAYOUT_SIGNER_CHAINS under DATABASE_URL); none: nothing is checked. */
    private readonly signerChains: ReadonlySet<string>,
    /** The catalog's rows now: which currencies can pay nothing is told of these. */
    private readonly currencies: () => readonly CurrencyRow[],
    private readonly onRefreshError: (error: unknown) => void,
    /** Told the currencies that can pay nothing whenever that set changes (the catalog lists them so). */
    private readonly onIlliquid: (ids: ReadonlySet<string>) => void,
    /** Set from every refresh (the metrics of what the hot wallets hold and the signer saw). */
    private readonly gauges?: HotWalletGauges,
  ) {}

  get enabled(): boolean {
    return this.signerChains.size > 0;
  }

  /** Reads now, then every `refreshMs` (CACHE_REFRESH_MS, at most LIQUIDITY_MAX_REFRESH_MS). */
  async start(refreshMs: number): Promise<void> {
    if (!this.enabled) return;
    await this.refresh();
    this.timer = setInterval(() => {
      this.refresh().catch(this.onRefreshError);
    }, Math.min(refreshMs, LIQUIDITY_MAX_REFRESH_MS));
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Reads the balances and waiting payouts now (tests call it after a signer pass). */
  async refresh(): Promise<void> {
    if (!this.enabled) return;
    const rows = await currencyLiquidity(this.db);
    const available = new Map<string, Decimal>();
    for (const row of rows) available.set(row.currency_id, new Decimal(row.spendable).minus(row.waiting));
    this.available = available;
    const currencies = this.currencies();
    if (this.gauges !== undefined) {
      const byId = new Map(currencies.map((row) => [row.id, row]));
      const assets = rows.flatMap((row) => {
        const currency = byId.get(row.currency_id);
        const left = available.get(row.currency_id);
        if (currency === undefined || left === undefined) return [];
        return [{ chain: currency.chain, asset: assetName(currency.coin, currency.network), spendable: new Decimal(row.spendable), available: left }];
      });
      this.gauges.update(assets, await chainReadings(this.db));
    }
    const illiquid = new Set(currencies.filter((row) => !this.hasLeft(row)).map((row) => row.id));
    if (illiquid.size !== this.illiquid.size || [...illiquid].some((id) => !this.illiquid.has(id))) {
      this.illiquid = illiquid;
      this.onIlliquid(illiquid);
    }
  }

  /** Whether a live payout in `row` is checked against a hot wallet: its chain is the signer's. */
  checks(row: CurrencyRow): boolean {
    return this.signerChains.has(row.chain);
  }

  /** Whether the hot wallet can pay `amount` of `row` now, beside the payouts waiting. True where nothing is checked. */
  canPay(row: CurrencyRow, amount: Decimal): boolean {
    return !this.checks(row) || this.left(row).gte(amount);
  }

  /** Whether anything of `row` is left to pay with (else it is listed withdraw-disabled). True where nothing is checked. */
  hasLeft(row: CurrencyRow): boolean {
    return !this.checks(row) || this.left(row).gt(0);
  }

  private left(row: CurrencyRow): Decimal {
    return this.available.get(row.id) ?? ZERO;
  }
}
