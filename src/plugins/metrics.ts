import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics.js';

/** The labelled series of one (method, route, status): prom-client hashes a label set per call otherwise. */
interface Series {
  requests: { inc(): void };
  duration: { observe(seconds: number): void };
}

/** Distinct (method, route, status) series kept at most; past it the map starts afresh (the series stay registered). */
const SERIES_LIMIT = 5_000;

/**
 * Counts every answered request under its route template (`/api/v1/partner/orders/:order_id`),
 * never the raw URL, so label cardinality stays bounded whatever clients send. The labelled
 * children are looked up once per (method, route, status) and kept, so a request costs an
 * increment and an observation, not two label-set hashes.
 */
export function installRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  const series = new Map<string, Series>();
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const key = `${request.method} ${reply.statusCode} ${route}`;
    let found = series.get(key);
    if (found === undefined) {
      const labels = { method: request.method, route, status: String(reply.statusCode) };
      found = { requests: metrics.httpRequests.labels(labels), duration: metrics.httpDuration.labels(labels) };
      if (series.size >= SERIES_LIMIT) series.clear();
      series.set(key, found);
    }
    found.requests.inc();
    found.duration.observe(reply.elapsedTime / 1000);
    done();
  });
}
