import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics.js';

/**
 * Counts every answered request under its route template (`/api/v1/partner/orders/:order_id`),
 * never the raw URL, so label cardinality stays bounded whatever clients send.
 */
export function installRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: String(reply.statusCode),
    };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
    done();
  });
}
