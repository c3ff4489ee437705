import type { FastifyInstance, FastifyReply, onResponseHookHandler } from 'fastify';
import type { Metrics } from '../metrics.js';

/** The labelled series of one (method, route, status): prom-client hashes a label set per call otherwise. */
interface Series {
  requests: { inc(): void };
  duration: { observe(seconds: number): void };
}

/**
 * One route's series, bound when first answered with each (method, status) and kept: a request
 * costs two map lookups, an increment and an observation, no label-set hash and no key string.
 * A route has a handful of methods and statuses, so its maps stay small.
 */
class RouteSeries {
  private readonly byMethod = new Map<string, Map<number, Series>>();

  constructor(
    private readonly metrics: Metrics,
    private readonly route: string,
  ) {}

  observe(method: string, reply: FastifyReply): void {
    let byStatus = this.byMethod.get(method);
    if (byStatus === undefined) {
      byStatus = new Map();
      this.byMethod.set(method, byStatus);
    }
    const status = reply.statusCode;
    let series = byStatus.get(status);
    if (series === undefined) {
      const labels = { method, route: this.route, status: String(status) };
      series = { requests: this.metrics.httpRequests.labels(labels), duration: this.metrics.httpDuration.labels(labels) };
      byStatus.set(status, series);
    }
    series.requests.inc();
    series.duration.observe(reply.elapsedTime / 1000);
  }
}

/**
 * Counts every answered request under its route template (`/api/v1/partner/orders/:order_id`),
 * never the raw URL, so label cardinality stays bounded whatever clients send: each route gets
 * its own onResponse hook holding its series (bound once per route, when it is added), and a
 * request no route matched counts as `unmatched`. Methods are those Fastify routes (a bounded
 * set), statuses are three digits.
 */
export function installRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onRoute', (route) => {
    const series = new RouteSeries(metrics, route.url);
    const hook: onResponseHookHandler = (request, reply, done) => {
      series.observe(request.method, reply);
      done();
    };
    route.onResponse = [...(route.onResponse === undefined ? [] : [route.onResponse].flat()), hook];
  });
  const unmatched = new RouteSeries(metrics, 'unmatched');
  app.addHook('onResponse', (request, reply, done) => {
    // Matched requests are counted by their route's own hook.
    if (request.is404) unmatched.observe(request.method, reply);
    done();
  });
}
