import { Gauge } from 'prom-client';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema/index.js';
import type { Metrics } from '../metrics.js';
import { ORDER_STATUSES } from '../domain/order-status.js';

/** orders_by_status, counted by the database when /metrics is scraped (not on the request path). */
export function registerOrderStatusGauge(db: Kysely<Database>, metrics: Metrics): void {
  new Gauge({
    name: 'orders_by_status',
    help: 'Orders in each status.',
    labelNames: ['status'],
    registers: [metrics.registry],
    async collect() {
      const rows = await db
        .selectFrom('orders')
        .select(['status', (eb) => eb.fn.countAll<number>().as('count')])
        .groupBy('status')
        .execute();
      const counts = new Map(rows.map((row) => [row.status, Number(row.count)]));
      for (const status of ORDER_STATUSES) this.set({ status }, counts.get(status) ?? 0);
    },
  });
}
