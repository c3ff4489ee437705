import { Decimal } from '../../domain/money.js';
import type { Counter, Gauge } from 'prom-client';
import type { Clock } from '../../clock.js';
import {
  findChainCursor,
  findChainDeposits,
  findOrderCoins,
  moveChainCursor,
  recordChainError,
  recordChainOk,
  unconfirmChainDeposit,
  upsertChainDeposit,
} from '../../db/repositories/chain-cursors-repository.js';
import type { ChainDepositRow } from '../../db/schema/chain-cursors.js';
import type { Db } from '../../db/schema/index.js';
import type { DepositIndexProbe } from '../../services/deposit-index-probe.js';
import type { ChainEvent, ChainWatcher, WatchedOrder } from '../adapters.js';
import type { ChainReader, FoundDeposit, ScanTarget } from './chain-reader.js';

export interface NodeWatcherSettings {
  /**
   * Blocks scanned again behind the cursor: on the first start, and for orders a pass sees
   * for the first time (an order created while the previous pass ran could have been paid in
   * a block that pass scanned without knowing the order).
   */
  lookbackBlocks: number;
  /** How far back the cursor goes when its block left the best chain. */
  reorgRewindBlocks: number;
  /** At most this many blocks per pass, so one pass stays short while catching up. */
  maxBlocksPerPass: number;
  /** First retry delay after a failed pass, doubled per failure up to maxBackoffMs. */
  baseBackoffMs: number;
  maxBackoffMs: number;
}

export interface NodeWatcherMetrics {
  errors: Counter<'chain'>;
  height: Gauge<'chain'>;
  /** The node's best block at the last pass: the watcher's lag is tip − height. */
  tip: Gauge<'chain'>;
  /** hd addresses seen paid on chain that the database never handed out (deposit-index-probe.ts). */
  unknownAddressesPaid: Counter<'chain'>;
}

export interface NodeWatcherLogger {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** A probe target's key where an order's id would be: never a UUID, so never an order's. */
const PROBE_KEY = 'index:';

/**
 * Watches one chain through one node (ChainReader) and reports deposits to the worker.
 *
 * Block scanning, not the node's wallet: any pruned or wallet-less node works, nothing is
 * imported into the operator's node, and the same logic serves UTXO and EVM chains. The
 * cursor (last block scanned, with its hash) and every deposit found (with its block) are in
 * the database, so a restart resumes where it stopped (nothing missed) and a deposit already
 * reported is not reported again (the order has its txid). Confirmations are tip − height + 1
 * for a deposit whose block is still the best chain's block at that height; when it is not, a
 * reorg took it out and the order hears `deposit_dropped`. Only mined transactions count: a
 * transaction back in the mempool after a reorg is dropped until it is mined again.
 *
 * A failing node never throws into the worker: the pass reports nothing, the error is counted
 * (chain_watcher_errors_total), kept for /readyz, and the node is asked again after a backoff.
 */
export class NodeChainWatcher implements ChainWatcher {
  readonly name: string;
  private network: string | undefined;
  private failures = 0;
  private retryAt = 0;
  /** Orders the previous pass already scanned for. */
  private known = new Set<string>();
  private readonly unmappable = new Set<string>();

  constructor(
    readonly chain: string,
    private readonly reader: ChainReader,
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly metrics: NodeWatcherMetrics,
    private readonly logger: NodeWatcherLogger,
    private readonly settings: NodeWatcherSettings,
    /** hd chains: the addresses not handed out to look for in every block. */
    private readonly probe?: DepositIndexProbe,
  ) {
    this.name = `node:${chain}`;
  }

  watches(chain: string): boolean {
    return chain === this.chain;
  }

  async poll(orders: readonly WatchedOrder[]): Promise<ChainEvent[]> {
    const now = this.clock.now();
    if (now.getTime() < this.retryAt) return [];
    try {
      const events = await this.pass(orders, now);
      if (this.failures > 0) this.logger.info({ chain: this.chain, node: this.reader.label }, 'chain node answers again');
      this.failures = 0;
      this.retryAt = 0;
      return events;
    } catch (error) {
      this.failures++;
      const delay = Math.min(this.settings.baseBackoffMs * 2 ** (this.failures - 1), this.settings.maxBackoffMs);
      this.retryAt = now.getTime() + delay;
      const message = error instanceof Error ? error.message : String(error);
      this.metrics.errors.inc({ chain: this.chain });
      this.logger.warn({ chain: this.chain, node: this.reader.label, err: message, retryInMs: delay }, 'chain watcher pass failed');
      await recordChainError(this.db, this.chain, message.slice(0, 500), now).catch(() => undefined);
      return [];
    }
  }

  private async pass(orders: readonly WatchedOrder[], now: Date): Promise<ChainEvent[]> {
    const network = await this.nodeNetwork();
    const targets = await this.targets(orders, network);
    const tip = await this.reader.tipHeight();
    this.metrics.tip.set({ chain: this.chain }, tip);

    const stored = await findChainCursor(this.db, this.chain);
    const expected = stored?.height != null && stored.block_hash !== null ? { height: stored.height, hash: stored.block_hash } : null;
    let cursor = expected ?? (await this.blockAt(Math.max(0, tip - this.settings.lookbackBlocks)));
    if (expected !== null && (expected.height > tip || (await this.reader.blockHash(expected.height)) !== expected.hash)) {
      cursor = await this.blockAt(Math.max(0, Math.min(expected.height, tip) - this.settings.reorgRewindBlocks));
      this.logger.warn({ chain: this.chain, from: expected.height, to: cursor.height }, 'chain reorganised: scanning again from an earlier block');
    }

    await this.checkRecordedBlocks(orders, now);

    // Orders this watcher has not scanned for yet: look a few blocks behind the cursor.
    const fresh = targets.filter((target) => !this.known.has(target.orderId));
    if (fresh.length > 0 && cursor.height > 0) {
      const start = await this.blockAt(Math.max(0, cursor.height - this.settings.lookbackBlocks));
      await this.record(await this.reader.scan(start, cursor.height, fresh), now);
    }
    this.known = new Set(targets.map((target) => target.orderId));

    // Every block is also searched for the addresses no order has yet: a hit means a restored
    // database lost the order that had it (services/deposit-index-probe.ts).
    const probed = await this.probeTargets(network);
    let reached = cursor;
    if (targets.length + probed.length === 0) {
      // Nothing to look for: skip ahead (a new order's lookback covers the blocks around its creation).
      if (tip !== cursor.height) reached = await this.blockAt(tip);
    } else if (tip > cursor.height) {
      const scanned = await this.reader.scan(cursor, Math.min(tip, cursor.height + this.settings.maxBlocksPerPass), [...targets, ...probed]);
      await this.retire(scanned.deposits.filter((deposit) => deposit.orderId.startsWith(PROBE_KEY)));
      await this.record({ deposits: scanned.deposits.filter((deposit) => !deposit.orderId.startsWith(PROBE_KEY)) }, now);
      reached = { height: scanned.height, hash: scanned.hash };
    }
    if (expected === null || reached.height !== expected.height || reached.hash !== expected.hash) {
      await moveChainCursor(this.db, this.chain, expected, { network, ...reached }, now);
    } else {
      await recordChainOk(this.db, this.chain, network, now);
    }
    this.metrics.height.set({ chain: this.chain }, reached.height);
    return this.events(orders, await findChainDeposits(this.db, orders.map((order) => order.id)), tip);
  }

  /** Asked once per watcher; a node on another network than mainnet is said loudly. */
  private async nodeNetwork(): Promise<string> {
    if (this.network !== undefined) return this.network;
    const network = await this.reader.network();
    if (!this.reader.isMainnet(network)) {
      this.logger.warn(
        { chain: this.chain, node: this.reader.label, network },
        'chain node is NOT on mainnet: deposits of test coins will move orders (fine for a test setup, never in production)',
      );
    }
    this.network = network;
    return network;
  }

  private async targets(orders: readonly WatchedOrder[], network: string): Promise<ScanTarget[]> {
    const coins = new Map((await findOrderCoins(this.db, orders.map((order) => order.id))).map((row) => [row.id, row]));
    const targets: ScanTarget[] = [];
    for (const order of orders) {
      const coin = coins.get(order.id);
      if (coin === undefined) continue;
      let address: string;
      try {
        address = this.reader.nodeAddress(network, order.depositAddress);
      } catch (error) {
        if (!this.unmappable.has(order.id)) {
          this.unmappable.add(order.id);
          this.logger.warn({ chain: this.chain, orderId: order.id, err: String(error) }, 'deposit address cannot be watched on this node');
        }
        continue;
      }
      targets.push({ orderId: order.id, address, contract: coin.token_contract?.toLowerCase() ?? null });
    }
    return targets;
  }

  /** The probe's addresses, spelled for the node, once per way a deposit arrives (coin, each token). */
  private async probeTargets(network: string): Promise<ScanTarget[]> {
    if (this.probe === undefined) return [];
    const targets: ScanTarget[] = [];
    for (const { index, address } of await this.probe.addresses()) {
      const nodeAddress = this.reader.nodeAddress(network, address);
      for (const contract of this.probe.contracts) targets.push({ orderId: `${PROBE_KEY}${index}`, address: nodeAddress, contract });
    }
    return targets;
  }

  /** Payments to addresses no order has: each address is retired and the sequence moved past it. */
  private async retire(deposits: readonly FoundDeposit[]): Promise<void> {
    if (this.probe === undefined) return;
    for (const deposit of deposits) {
      const index = Number(deposit.orderId.slice(PROBE_KEY.length));
      const moved = await this.probe.seen(index);
      if (moved === null) continue;
      this.metrics.unknownAddressesPaid.inc({ chain: this.chain });
      this.logger.error(
        { chain: this.chain, index, txid: deposit.txid, amount: deposit.amount.toFixed(), height: deposit.blockHeight, nextIndexBefore: moved.nextBefore, nextIndex: moved.nextAfter },
        'a deposit address this database never handed out was paid (a restored backup lost its order?): the address is retired and the index sequence moved past it; reconcile the payment by hand (docs/operations.md)',
      );
    }
  }

  /** A recorded deposit whose block is no longer the best chain's block at its height left the chain. */
  private async checkRecordedBlocks(orders: readonly WatchedOrder[], now: Date): Promise<void> {
    const rows = await findChainDeposits(this.db, orders.map((order) => order.id));
    const hashes = new Map<number, string | null>();
    for (const row of rows) {
      if (row.block_height === null || row.block_hash === null) continue;
      if (!hashes.has(row.block_height)) hashes.set(row.block_height, await this.reader.blockHash(row.block_height));
      if (hashes.get(row.block_height) !== row.block_hash) {
        await unconfirmChainDeposit(this.db, row.order_id, row.txid, row.block_hash, now);
        this.logger.warn({ chain: this.chain, orderId: row.order_id, txid: row.txid, height: row.block_height }, 'deposit left the best chain');
      }
    }
  }

  private async record(scanned: { deposits: readonly FoundDeposit[] }, now: Date): Promise<void> {
    for (const deposit of scanned.deposits) {
      await upsertChainDeposit(this.db, { ...deposit, chain: this.chain, amount: deposit.amount.toFixed() }, now);
    }
  }

  private async blockAt(height: number): Promise<{ height: number; hash: string }> {
    const hash = await this.reader.blockHash(height);
    if (hash === null) throw new Error(`${this.reader.label}: no block at height ${height}`);
    return { height, hash };
  }

  /** What the worker should hear, from the recorded deposits and the order as it stands. */
  private events(orders: readonly WatchedOrder[], rows: readonly ChainDepositRow[], tip: number): ChainEvent[] {
    const byOrder = new Map<string, ChainDepositRow[]>();
    for (const row of rows) byOrder.set(row.order_id, [...(byOrder.get(row.order_id) ?? []), row]);
    const events: ChainEvent[] = [];
    for (const order of orders) {
      const deposits = byOrder.get(order.id) ?? [];
      if (order.depositTxid === null) {
        // The first deposit mined is the order's deposit; later ones are left to the operator.
        const first = deposits
          .filter((row) => row.block_height !== null)
          .sort((a, b) => (a.block_height ?? 0) - (b.block_height ?? 0))[0];
        if (first?.block_height != null) {
          events.push({
            kind: 'deposit_seen',
            orderId: order.id,
            txid: first.txid,
            amount: new Decimal(first.amount),
            confirmations: tip - first.block_height + 1,
          });
        }
        continue;
      }
      const own = deposits.find((row) => row.txid === order.depositTxid);
      // A txid this watcher never recorded (set before it ran) is left alone.
      if (own === undefined) continue;
      if (own.block_height === null) {
        events.push({ kind: 'deposit_dropped', orderId: order.id, txid: own.txid });
      } else {
        const confirmations = tip - own.block_height + 1;
        if (confirmations !== order.confirmations) events.push({ kind: 'confirmations', orderId: order.id, txid: own.txid, confirmations });
      }
    }
    return events;
  }
}
