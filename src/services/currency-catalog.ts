import { addressPattern } from '../domain/addresses/address-patterns.js';
import { assetName } from '../domain/asset-name.js';
import { caip19, type ChainFacts } from '../domain/chain-facts.js';
import { evmChainId } from '../domain/evm-chain-ids.js';
import { Decimal } from '../domain/money.js';
import type { PayoutPaths } from '../chains/payout-paths.js';
import { listChains, listCurrencies } from '../db/repositories/currencies-repository.js';
import { hasDepositAddresses } from '../db/repositories/deposit-addresses-repository.js';
import type { CurrencyRow } from '../db/schema/currencies.js';
import type { Db } from '../db/schema/index.js';
import { PrimaryReads, type LagTolerantReads } from './replica-reads.js';
import { toJson } from '../json.js';

/**
 * A Currency object as docs/contract.md §2.1 shows it, plus v1.1's contract_address and chain_id and v1.2's
 * chain facts (docs/contract.md §10.7, from `chain`, the row's chain's facts): no internal column leaks.
 * `offered`: the deposit and withdraw flags as the caller may use them (the stored switches and
 * what this server has configured, CurrencyCatalog); the stored switches without it.
 */
export function publicCurrency(row: CurrencyRow, chain: ChainFacts, offered?: { deposit: boolean; withdraw: boolean }): Record<string, unknown> {
  return {
    id: row.id,
    coin: row.coin,
    network: row.network,
    name: row.name,
    is_active: row.is_active,
    is_deposit_enabled: offered?.deposit ?? row.is_deposit_enabled,
    is_withdraw_enabled: offered?.withdraw ?? row.is_withdraw_enabled,
    min_amount: new Decimal(row.min_amount),
    max_amount: new Decimal(row.max_amount),
    min_confirmations: row.min_confirmations,
    decimals: row.decimals,
    is_memo: row.is_memo,
    explorer_tx_url: row.explorer_tx_url,
    explorer_address_url: row.explorer_address_url,
    icon_url: row.icon_url,
    contract_address: row.token_contract,
    chain_id: evmChainId(row.chain, row.address_format),
    chain: chain.name,
    caip2: chain.caip2,
    caip19: caip19(chain, row.token_contract, row.address_format),
    // What the lifecycle waits for: an order stores it as deposit_confirmations_required.
    confirmations_required: row.min_confirmations,
    memo_name: chain.memo_name,
    address_regex: addressPattern(row.address_format),
  };
}

/**
 * What this server has configured for money to move, beyond the operator's switches
 * (docs/contract.md §11.1): a deposit wallet per chain, and a payout path per chain.
 */
export interface MoneyPaths {
  /** hd and memo chains: whether the chain has a wallet (DEPOSIT_XPUB_ / DEPOSIT_ADDRESS_, or the demo one). Pool chains: a loaded pool, asked of the database at each reload. */
  hasDepositWallet(row: CurrencyRow): boolean;
  payouts: PayoutPaths;
}

/** Before the wallets are loaded (and in the worker, which quotes no new order): the switches alone. */
const SWITCHES_ONLY: MoneyPaths = { hasDepositWallet: () => true, payouts: { configured: () => true, simulatedLive: false } };

interface Snapshot {
  rows: readonly CurrencyRow[];
  /** Every chain's facts, by the catalog's chain code (currencies.chain references it). */
  chains: ReadonlyMap<string, ChainFacts>;
  /** Every row of a coin (active or not), by upper-case ticker. */
  byCoin: ReadonlyMap<string, readonly CurrencyRow[]>;
  /** Ids of the currencies that take deposits: switched on and a deposit wallet configured. */
  depositOpen: ReadonlySet<string>;
  /** Ids of the currencies live orders are paid out in: switched on and a payout path configured. */
  liveWithdrawOpen: ReadonlySet<string>;
  /** Serialized GET /currencies body for live keys and anonymous callers, built once per change instead of once per request. */
  publicJson: Buffer;
  /** The same for a sandbox key: its orders are paid by the simulator, so withdrawals follow the switch alone. */
  sandboxJson: Buffer;
}

/**
 * The catalog in memory. Reads never touch the database: the snapshot is rebuilt when this
 * process changes the catalog (reload) and on a short interval, which is how a change made by
 * another process reaches this one.
 */
export class CurrencyCatalog {
  private snapshot: Snapshot = {
    rows: [],
    chains: new Map(),
    byCoin: new Map(),
    depositOpen: new Set(),
    liveWithdrawOpen: new Set(),
    publicJson: Buffer.from('[]'),
    sandboxJson: Buffer.from('[]'),
  };
  private timer: NodeJS.Timeout | undefined;
  private paths: MoneyPaths = SWITCHES_ONLY;
  /** Told the rows after every reload (the price book asks for a new currency's symbol). */
  private readonly reloadHandlers: ((rows: readonly CurrencyRow[]) => void)[] = [];
  /** Currencies whose hot wallet can pay nothing now (HotWalletLiquidity): listed withdraw-disabled to live callers. */
  private illiquid: ReadonlySet<string> = new Set();

  constructor(
    private readonly db: Db,
    private readonly refreshMs: number,
    private readonly onRefreshError: (error: unknown) => void,
    /**
     * Where the timed refresh reads (the read replica when there is one: it tolerates lag, it
     * is a refresh). A reload on a change (CatalogChanges) reads the primary, which has the
     * change the NOTIFY announced; a replica might not yet.
     */
    private readonly refreshReads: LagTolerantReads = new PrimaryReads(db),
  ) {}

  async start(): Promise<void> {
    await this.reload();
    this.timer = setInterval(() => {
      this.refreshReads.read(undefined, (db) => this.load(db)).catch(this.onRefreshError);
    }, this.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** What the server has configured (runtime.ts, once the wallets are loaded); reloads the snapshot. */
  async useMoneyPaths(paths: MoneyPaths): Promise<void> {
    this.paths = paths;
    await this.reload();
  }

  reload(): Promise<void> {
    return this.load(this.db);
  }

  private async load(db: Db): Promise<void> {
    const rows = await listCurrencies(db);
    const chains = new Map((await listChains(db)).map((chain) => [chain.code, chain] as const));
    const paths = this.paths;
    // A pool chain takes deposits once addresses were loaded into its pool (an empty pool later
    // is a 422 at order time, counted in deposit_address_pool_exhausted_total).
    const poolChains = [...new Set(rows.filter((row) => row.deposit_strategy === 'pool').map((row) => row.chain))];
    const loaded = new Set<string>();
    for (const chain of poolChains) if (await hasDepositAddresses(db, chain)) loaded.add(chain);
    const depositOpen = new Set<string>();
    const liveWithdrawOpen = new Set<string>();
    for (const row of rows) {
      const wallet = row.deposit_strategy === 'pool' ? loaded.has(row.chain) : paths.hasDepositWallet(row);
      if (row.is_deposit_enabled && wallet) depositOpen.add(row.id);
      if (row.is_withdraw_enabled && paths.payouts.configured(row.chain)) liveWithdrawOpen.add(row.id);
    }
    const byCoin = new Map<string, CurrencyRow[]>();
    for (const row of rows) byCoin.set(row.coin, [...(byCoin.get(row.coin) ?? []), row]);
    const parts = { rows, chains, byCoin, depositOpen, liveWithdrawOpen };
    this.snapshot = { ...parts, ...this.listings(parts) };
    for (const handler of this.reloadHandlers) handler(rows);
  }

  /** Calls `handler` with the rows after every reload, from the next one on. */
  afterReload(handler: (rows: readonly CurrencyRow[]) => void): void {
    this.reloadHandlers.push(handler);
  }

  /**
   * The currencies whose hot wallet can pay nothing now (docs/contract.md §11.7): a live caller sees them
   * withdraw-disabled until it can again. Rebuilds the listings only.
   */
  useIlliquid(ids: ReadonlySet<string>): void {
    this.illiquid = ids;
    this.snapshot = { ...this.snapshot, ...this.listings(this.snapshot) };
  }

  /** GET /currencies' two bodies, serialized once per change. */
  private listings(parts: Pick<Snapshot, 'rows' | 'chains' | 'depositOpen' | 'liveWithdrawOpen'>): Pick<Snapshot, 'publicJson' | 'sandboxJson'> {
    const active = parts.rows.filter((row) => row.is_active);
    const json = (sandbox: boolean) =>
      Buffer.from(
        toJson(
          active.map((row) =>
            publicCurrency(row, chainOf(parts.chains, row), {
              deposit: parts.depositOpen.has(row.id),
              withdraw: sandbox ? row.is_withdraw_enabled : parts.liveWithdrawOpen.has(row.id) && !this.illiquid.has(row.id),
            }),
          ),
        ),
      );
    return { publicJson: json(false), sandboxJson: json(true) };
  }

  /** Whether the currency takes deposits: its switch, and a deposit wallet configured for its chain. */
  depositEnabled(row: CurrencyRow): boolean {
    return this.snapshot.depositOpen.has(row.id);
  }

  /** Whether orders are paid out in the currency: its switch, and for live orders a payout path for its chain. */
  withdrawEnabled(row: CurrencyRow, sandbox: boolean): boolean {
    return sandbox ? row.is_withdraw_enabled : this.snapshot.liveWithdrawOpen.has(row.id);
  }

  /** A row by id, active or not (orders keep pointing at deactivated currencies). */
  byId(id: string): CurrencyRow | undefined {
    return this.snapshot.rows.find((row) => row.id === id);
  }

  /** A currency's asset name in the ledger (docs/contract.md §11.4, domain/asset-name.ts). */
  assetOf(id: string): string {
    const row = this.byId(id);
    // Unreachable for an order's currency: orders reference currencies, and rows are never removed.
    if (row === undefined) throw new Error(`no currency ${id} in the catalog`);
    return assetName(row.coin, row.network);
  }

  /**
   * The asset a chain's network fees are paid in: its own coin (its currency without a token
   * contract), or the chain's code when the catalog lists only tokens on it.
   */
  feeAssetOf(chain: string): string {
    const own = this.snapshot.rows.find((row) => row.chain === chain && row.token_contract === null);
    return own === undefined ? assetName(chain, chain) : assetName(own.coin, own.network);
  }

  /** The facts of a row's chain (docs/contract.md §10.7): every currency's chain has them (a foreign key, migration 0045). */
  chainOf(row: CurrencyRow): ChainFacts {
    return chainOf(this.snapshot.chains, row);
  }

  /** Every chain's facts, by the catalog's chain code. */
  chains(): ReadonlyMap<string, ChainFacts> {
    return this.snapshot.chains;
  }

  /** Every row, active or not. */
  all(): readonly CurrencyRow[] {
    return this.snapshot.rows;
  }

  /** The rows of one coin on every network; empty when the coin is unknown. */
  networksOf(coin: string): readonly CurrencyRow[] {
    return this.snapshot.byCoin.get(coin) ?? [];
  }

  /** GET /currencies as a live key or an anonymous caller sees it, or as a sandbox key does. */
  publicJson(sandbox = false): Buffer {
    return sandbox ? this.snapshot.sandboxJson : this.snapshot.publicJson;
  }
}

function chainOf(chains: ReadonlyMap<string, ChainFacts>, row: CurrencyRow): ChainFacts {
  const chain = chains.get(row.chain);
  // Unreachable while currencies.chain references chains (migration 0045).
  if (chain === undefined) throw new Error(`no chain facts for ${row.chain}`);
  return chain;
}
