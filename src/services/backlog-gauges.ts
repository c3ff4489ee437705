import { Gauge } from 'prom-client';
import type { Clock } from '../clock.js';
import { listPoolAlerts } from '../db/repositories/address-pool-alerts-repository.js';
import { countFreePoolAddressesByChain } from '../db/repositories/deposit-addresses-repository.js';
import { oldestUnchangedByStatus } from '../db/repositories/order-listings-repository.js';
import type { Db } from '../db/schema/index.js';
import { FINAL_STATUSES, ORDER_STATUSES, type OrderStatus } from '../domain/order-status.js';
import type { Metrics } from '../metrics.js';
import { ORDER_STATUS_REFRESH_MS } from '../infrastructure/order-status-gauge.js';
import { DEFAULT_POOL_LOW_AT } from './address-pools.js';

/**
 * The statuses an order should leave by itself (the worker, the chain or the payout moves it):
 * one that sits in them for long is stuck. waiting_deposit is left out: an order waits there for
 * the end user until it expires, and the expiry sweep has worker_lag_seconds.
 */
const MOVING_STATUSES: readonly OrderStatus[] = ORDER_STATUSES.filter((status) => !FINAL_STATUSES.has(status) && status !== 'waiting_deposit');

/**
 * What piles up where nobody looks (ops/grafana, ops/prometheus/service-alerts.yml): the live
 * order longest unchanged in each moving status (stuck orders), and the free addresses of each
 * deposit address pool (a pool at 0 refuses new orders on its chain) with the low-pool threshold
 * in force for it (an operator's, else DEFAULT_POOL_LOW_AT: the DepositAddressPoolLow rule
 * compares the two). Counted by the database on
 * the orders_by_status timer, so a scrape never runs a query; every process counts the same
 * tables, hence `max` across a cluster.
 */
export class BacklogGauges {
  private unchanged = new Map<OrderStatus, Date>();
  private pools = new Map<string, number>();
  private lowAt = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    clock: Clock,
    metrics: Metrics,
    private readonly onError: (error: unknown) => void,
  ) {
    const unchanged = (): ReadonlyMap<OrderStatus, Date> => this.unchanged;
    const pools = (): ReadonlyMap<string, number> => this.pools;
    const lowAt = (): ReadonlyMap<string, number> => this.lowAt;
    new Gauge({
      name: 'orders_unchanged_seconds',
      help: `Seconds the live order longest unchanged in each moving status (${MOVING_STATUSES.join(', ')}) has been so; 0 with none. Recounted every ${ORDER_STATUS_REFRESH_MS / 1000} s.`,
      labelNames: ['status'],
      registers: [metrics.registry],
      aggregator: 'max',
      collect() {
        const now = clock.now().getTime();
        for (const status of MOVING_STATUSES) {
          const since = unchanged().get(status);
          this.set({ status }, since === undefined ? 0 : Math.max(0, (now - since.getTime()) / 1000));
        }
      },
    });
    new Gauge({
      name: 'deposit_address_pool_available',
      help: `Free addresses of each deposit address pool (chains whose addresses are loaded, not derived), recounted every ${ORDER_STATUS_REFRESH_MS / 1000} s.`,
      labelNames: ['chain'],
      registers: [metrics.registry],
      aggregator: 'max',
      collect() {
        this.reset();
        for (const [chain, available] of pools()) this.set({ chain }, available);
      },
    });
    new Gauge({
      name: 'deposit_address_pool_low_at',
      help: `The low-pool alert threshold in force for each deposit address pool: an operator's (console, PUT /admin/v1/address-pools/{chain}/alert), else ${DEFAULT_POOL_LOW_AT}. The pool is low while deposit_address_pool_available is below it.`,
      labelNames: ['chain'],
      registers: [metrics.registry],
      aggregator: 'max',
      collect() {
        this.reset();
        for (const [chain, threshold] of lowAt()) this.set({ chain }, threshold);
      },
    });
  }

  /** Recounts now (the timer's step). */
  async refresh(): Promise<void> {
    const [unchanged, pools, alerts] = await Promise.all([oldestUnchangedByStatus(this.db, MOVING_STATUSES), countFreePoolAddressesByChain(this.db), listPoolAlerts(this.db)]);
    this.unchanged = unchanged;
    this.pools = pools;
    this.lowAt = new Map([...pools.keys()].map((chain) => [chain, alerts.get(chain) ?? DEFAULT_POOL_LOW_AT]));
  }

  /** Counts once, then every ORDER_STATUS_REFRESH_MS; a failed count keeps the last one. */
  async start(): Promise<void> {
    await this.refresh().catch(this.onError);
    this.timer = setInterval(() => void this.refresh().catch(this.onError), ORDER_STATUS_REFRESH_MS).unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
