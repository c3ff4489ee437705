import { Gauge } from 'prom-client';
import { countOrdersByStatus } from '../db/repositories/order-listings-repository.js';
import type { Db } from '../db/schema/index.js';
import type { Metrics } from '../metrics.js';
import { ORDER_STATUSES } from '../domain/order-status.js';

/** orders_by_status, counted by the database when /metrics is scraped (not on the request path). */
export function registerOrderStatusGauge(db: Db, metrics: Metrics): void {
  new Gauge({
    name: 'orders_by_status',
    help: 'Orders in each status.',
    labelNames: ['status'],
    registers: [metrics.registry],
    async collect() {
      const counts = await countOrdersByStatus(db);
      for (const status of ORDER_STATUSES) this.set({ status }, counts.get(status) ?? 0);
    },
  });
}
