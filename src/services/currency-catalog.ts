import { evmChainId } from '../domain/evm-chain-ids.js';
import { Decimal } from '../domain/money.js';
import { listCurrencies } from '../db/repositories/currencies-repository.js';
import type { CurrencyRow } from '../db/schema/currencies.js';
import type { Db } from '../db/schema/index.js';
import { toJson } from '../json.js';

/** A Currency object as spec 2.1 shows it, plus v1.1's contract_address and chain_id: no internal column leaks. */
export function publicCurrency(row: CurrencyRow): Record<string, unknown> {
  return {
    id: row.id,
    coin: row.coin,
    network: row.network,
    name: row.name,
    is_active: row.is_active,
    is_deposit_enabled: row.is_deposit_enabled,
    is_withdraw_enabled: row.is_withdraw_enabled,
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
  };
}

interface Snapshot {
  rows: readonly CurrencyRow[];
  /** Every row of a coin (active or not), by upper-case ticker. */
  byCoin: ReadonlyMap<string, readonly CurrencyRow[]>;
  /** Serialized GET /currencies body, built once per change instead of once per request. */
  publicJson: Buffer;
}

/**
 * The catalog in memory. Reads never touch the database: the snapshot is rebuilt when this
 * process changes the catalog (reload) and on a short interval, which is how a change made by
 * another process reaches this one.
 */
export class CurrencyCatalog {
  private snapshot: Snapshot = { rows: [], byCoin: new Map(), publicJson: Buffer.from('[]') };
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    private readonly refreshMs: number,
    private readonly onRefreshError: (error: unknown) => void,
  ) {}

  async start(): Promise<void> {
    await this.reload();
    this.timer = setInterval(() => {
      this.reload().catch(this.onRefreshError);
    }, this.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  async reload(): Promise<void> {
    const rows = await listCurrencies(this.db);
    const active = rows.filter((row) => row.is_active).map(publicCurrency);
    const byCoin = new Map<string, CurrencyRow[]>();
    for (const row of rows) byCoin.set(row.coin, [...(byCoin.get(row.coin) ?? []), row]);
    this.snapshot = { rows, byCoin, publicJson: Buffer.from(toJson(active)) };
  }

  /** A row by id, active or not (orders keep pointing at deactivated currencies). */
  byId(id: string): CurrencyRow | undefined {
    return this.snapshot.rows.find((row) => row.id === id);
  }

  /** Every row, active or not. */
  all(): readonly CurrencyRow[] {
    return this.snapshot.rows;
  }

  /** The rows of one coin on every network; empty when the coin is unknown. */
  networksOf(coin: string): readonly CurrencyRow[] {
    return this.snapshot.byCoin.get(coin) ?? [];
  }

  publicJson(): Buffer {
    return this.snapshot.publicJson;
  }
}
