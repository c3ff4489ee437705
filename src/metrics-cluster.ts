import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

/**
 * /metrics across a WEB_CONCURRENCY cluster. Each scrape lands on whichever API
 * process the primary hands the connection to, and each process counted only its own requests,
 * so Prometheus saw a counter go up and down from scrape to scrape (resets). Now the process that
 * takes a scrape asks the primary, which gathers every process's registry over the cluster's IPC
 * channel (prom-client's AggregatorRegistry) and answers the sum: counters and histograms
 * summed, gauges by their `aggregator` (a table count the same in every process: its max; a
 * version: the first). One process (no cluster) answers from its own registry as before.
 */
const REQUEST = 'epa:cluster-metrics-request';
const RESPONSE = 'epa:cluster-metrics-response';
/** A scrape waits this long for the primary (which itself gives every process 5 s). */
const PRIMARY_TIMEOUT_MS = 6000;

interface MetricsRequest {
  type: typeof REQUEST;
  id: number;
}
interface MetricsResponse {
  type: typeof RESPONSE;
  id: number;
  text?: string;
  error?: string;
}

/** In the primary: answers the API processes' requests for the cluster's metrics. */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: unknown) => {
    if (!isRequest(message)) return;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: RESPONSE, id: message.id, text } satisfies MetricsResponse),
      (error: unknown) => worker.send({ type: RESPONSE, id: message.id, error: error instanceof Error ? error.message : String(error) } satisfies MetricsResponse),
    );
  });
}

/**
 * In an API process: the text to answer a scrape with. Under a cluster primary, every process's
 * metrics aggregated (`registry` is what this process contributes); alone, `registry`'s own.
 */
export type MetricsText = () => Promise<string>;

export function metricsText(registry: Registry): MetricsText {
  if (!cluster.isWorker) return () => registry.metrics();
  // Each process answers the primary's gathering with this registry (one app per process here).
  AggregatorRegistry.setRegistries([registry]);
  new AggregatorRegistry();
  const pending = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void }>();
  let next = 0;
  process.on('message', (message: unknown) => {
    if (!isResponse(message)) return;
    const waiter = pending.get(message.id);
    if (waiter === undefined) return;
    pending.delete(message.id);
    if (message.text !== undefined) waiter.resolve(message.text);
    else waiter.reject(new Error(`the cluster primary could not gather metrics: ${message.error ?? 'no answer'}`));
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error('the cluster primary did not answer for metrics in time'));
      }, PRIMARY_TIMEOUT_MS);
      pending.set(id, {
        resolve: (text) => {
          clearTimeout(timer);
          resolve(text);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      process.send?.({ type: REQUEST, id } satisfies MetricsRequest);
    });
}

function isRequest(message: unknown): message is MetricsRequest {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === REQUEST && typeof (message as { id?: unknown }).id === 'number';
}

function isResponse(message: unknown): message is MetricsResponse {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === RESPONSE && typeof (message as { id?: unknown }).id === 'number';
}
