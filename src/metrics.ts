import { readFileSync } from 'node:fs';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

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

/** package.json's version: the same relative path from src/ and from a compiled copy beside it (dist/). */
function packageVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof manifest.version === 'string' ? manifest.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * `build_info{version, node_version} 1`: which release and runtime each scraped
 * process runs, so a half-finished rollout shows. One per registry.
 */
export function registerBuildInfo(metrics: Metrics): void {
  new Gauge({
    name: 'build_info',
    help: 'Always 1: the release (package.json version) and Node.js version of this process.',
    labelNames: ['version', 'node_version'],
    registers: [metrics.registry],
    aggregator: 'first',
  }).set({ version: packageVersion(), node_version: process.versions.node }, 1);
}

/** What a connection pool can say about itself (node-postgres: totalCount, idleCount, waitingCount). */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

/**
 * The PostgreSQL pool's gauges, read from the pool at scrape time (no query): its
 * connections by state, the requests queued for one, and its size. A pool at `max` with waiting
 * requests is the first sign of a saturated database. Summed across a cluster.
 */
export function registerPoolMetrics(metrics: Metrics, stats: () => PoolStats): void {
  new Gauge({
    name: 'db_pool_connections',
    help: 'PostgreSQL connections of this process by state: in_use (checked out) or idle.',
    labelNames: ['state'],
    registers: [metrics.registry],
    collect() {
      const now = stats();
      this.set({ state: 'in_use' }, now.total - now.idle);
      this.set({ state: 'idle' }, now.idle);
    },
  });
  new Gauge({
    name: 'db_pool_waiting_requests',
    help: 'Queries of this process waiting for a free PostgreSQL connection.',
    registers: [metrics.registry],
    collect() {
      this.set(stats().waiting);
    },
  });
  new Gauge({
    name: 'db_pool_max_connections',
    help: 'The most PostgreSQL connections this process opens (its pool size).',
    registers: [metrics.registry],
    collect() {
      this.set(stats().max);
    },
  });
}
