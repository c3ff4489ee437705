/**
 * One bounded HTTP load run with autocannon: fixed duration and connections, keep-alive,
 * no pipelining. Latency percentiles come from every response's own time (sub-millisecond;
 * autocannon's histogram has 1 ms resolution), throughput from the answered count.
 */
import autocannon, { type RequestSpec } from 'autocannon';

export interface LoadOptions {
  url: string;
  connections: number;
  /** Seconds. */
  duration: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Several requests cycled per connection (e.g. GETs of different order ids). */
  requests?: RequestSpec[];
  /** Requests per second over all connections (open loop); unset = as fast as answered. */
  overallRate?: number;
  /** Status every answer must have (others are counted as errors). */
  expectStatus?: number;
}

export interface LoadResult {
  /** Answers with the expected status per second. */
  rps: number;
  p50: number;
  p99: number;
  ok: number;
  /** Answers with another status, plus connection errors and timeouts. */
  failed: number;
  statuses: Record<string, number>;
  seconds: number;
  /** Every expected answer's latency, ms (for merging runs). */
  latencies: number[];
}

/** Staggered autocannon instances a paced run is split into (see runLoad). */
const PACING_SLOTS = 25;

/**
 * A run at a fixed overall rate. autocannon's `overallRate` hands each connection its budget at
 * the start of every second and the connection spends it back to back, so one instance sends
 * the second's requests in a burst at full speed. Here the rate and the connections are split
 * over PACING_SLOTS instances started 1/PACING_SLOTS s apart, so the bursts are small and spread
 * over the second: close to an even arrival rate. Merged like one run.
 */
async function runPaced(options: LoadOptions & { overallRate: number }): Promise<LoadResult> {
  const slots = Math.max(1, Math.min(PACING_SLOTS, options.connections, Math.floor(options.overallRate)));
  const runs = Array.from({ length: slots }, async (_, i) => {
    await new Promise((resolve) => setTimeout(resolve, (i * 1000) / slots));
    return runOne({
      ...options,
      connections: Math.max(1, Math.floor(options.connections / slots)),
      overallRate: Math.floor(options.overallRate / slots) + (i < options.overallRate % slots ? 1 : 0),
    });
  });
  const results = await Promise.all(runs);
  const merged = mergeLoads(results);
  // The instances run side by side: the rate is the sum of theirs, not the merged mean.
  const seconds = Math.max(...results.map((result) => result.seconds));
  return { ...merged, rps: merged.ok / seconds, seconds };
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  return options.overallRate === undefined ? runOne(options) : runPaced({ ...options, overallRate: options.overallRate });
}

async function runOne(options: LoadOptions): Promise<LoadResult> {
  const expect = options.expectStatus ?? 200;
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const instance = autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.duration,
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    ...(options.body === undefined ? {} : { body: options.body }),
    ...(options.requests === undefined ? {} : { requests: options.requests }),
    ...(options.overallRate === undefined ? {} : { overallRate: options.overallRate }),
    timeout: 10,
  });
  instance.on('response', (_client: unknown, status: number, _bytes: number, responseTime: number) => {
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (status === expect) latencies.push(responseTime);
  });
  const result = await instance;
  const ok = latencies.length;
  const failed = Object.entries(statuses).reduce((sum, [status, count]) => (Number(status) === expect ? sum : sum + count), 0) + result.errors;
  return {
    rps: ok / result.duration,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    ok,
    failed,
    statuses,
    seconds: result.duration,
    latencies,
  };
}

/** Several runs of one target as one: counts and seconds summed, percentiles over all answers. */
export function mergeLoads(results: LoadResult[]): LoadResult {
  const latencies = results.flatMap((result) => result.latencies);
  const statuses: Record<string, number> = {};
  for (const result of results) for (const [status, count] of Object.entries(result.statuses)) statuses[status] = (statuses[status] ?? 0) + count;
  const ok = results.reduce((sum, result) => sum + result.ok, 0);
  const seconds = results.reduce((sum, result) => sum + result.seconds, 0);
  return {
    rps: ok / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    ok,
    failed: results.reduce((sum, result) => sum + result.failed, 0),
    statuses,
    seconds,
    latencies,
  };
}

/** Nearest-rank percentile of an unsorted sample (sorted in place), ms. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  if (!isSorted(values)) values.sort((a, b) => a - b);
  const rank = Math.min(values.length - 1, Math.max(0, Math.ceil((p / 100) * values.length) - 1));
  return values[rank] ?? Number.NaN;
}

function isSorted(values: number[]): boolean {
  for (let i = 1; i < values.length; i++) if ((values[i - 1] ?? 0) > (values[i] ?? 0)) return false;
  return true;
}
