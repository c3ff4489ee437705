import { Gauge } from 'prom-client';
import { countOrdersByStatus } from '../db/repositories/order-listings-repository.js';
import type { Db } from '../db/schema/index.js';
import type { Metrics } from '../metrics.js';
import { ORDER_STATUSES, type OrderStatus } from '../domain/order-status.js';

/** How often orders_by_status is recounted, in ms: about one Prometheus scrape interval. */
export const ORDER_STATUS_REFRESH_MS = 15_000;

/**
 * orders_by_status: counted by the database on a timer, and a scrape reads the last count.
 * Counting on every scrape let anyone who reached /metrics run a count(*) … group by over orders
 * as often as they liked; now the database sees one count per interval whatever the
 * scrape rate, and the value is at most that old. Every process counts the shared table, so the
 * figure is the same from any of them.
 */
export class OrderStatusGauge {
  private counts = new Map<OrderStatus, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    metrics: Metrics,
    private readonly onError: (error: unknown) => void,
  ) {
    const current = (): ReadonlyMap<OrderStatus, number> => this.counts;
    new Gauge({
      name: 'orders_by_status',
      help: `Live orders (sandbox ones left out) in each status, recounted every ${ORDER_STATUS_REFRESH_MS / 1000} s.`,
      labelNames: ['status'],
      registers: [metrics.registry],
      // Every process counts the same table: across a WEB_CONCURRENCY cluster the count, not a sum.
      aggregator: 'max',
      collect() {
        const counts = current();
        for (const status of ORDER_STATUSES) this.set({ status }, counts.get(status) ?? 0);
      },
    });
  }

  /** Recounts now (the timer's step; tests call it to see a change at once). */
  async refresh(): Promise<void> {
    this.counts = await countOrdersByStatus(this.db);
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
