import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The metrics registry every layer writes to (services, worker, pricing, chains, the HTTP
 * hook in plugins/metrics.ts). It sits low, beside the clock and the logger, so nothing below
 * the plugins has to import a plugin to count something.
 *
 * One registry per app instance, so several apps in one process (tests) never collide.
 */
export interface Metrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  /** Seconds. */
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from request received to response sent, by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
  };
}
