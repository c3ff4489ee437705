import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { metricsAccess } from '../metrics-access.js';
import type { Metrics } from '../metrics.js';

/**
 * `npm run worker`'s own /metrics (WORKER_METRICS_PORT): the worker's lag, payout
 * failures, webhook deliveries and its pool are in its registry, not in any API process's. The
 * same access rule as the API's /metrics (src/metrics-access.ts: METRICS_TOKEN, or a loopback
 * scrape with no proxy header); no proxy is trusted here, so the client is the TCP peer. Answers
 * GET /metrics, and 404 {detail, code} for anything else.
 */
export async function listenWorkerMetrics(
  metrics: Metrics,
  listener: { host: string; port: number },
  metricsToken: string | undefined,
): Promise<{ server: Server; url: URL }> {
  const verdict = metricsAccess(metricsToken);
  const server = createServer((request, response) => {
    const json = (status: number, detail: string, code: string): void => {
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
      response.end(JSON.stringify({ detail, code }));
    };
    const path = (request.url ?? '').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') return json(404, 'not found', 'not_found');
    const remoteAddress = request.socket.remoteAddress;
    const decided = verdict({ headers: request.headers, remoteAddress, ip: remoteAddress ?? '' });
    if (decided === 'invalid_token') return json(401, 'invalid metrics token', 'unauthorized');
    if (decided === 'denied') return json(401, 'metrics need the bearer METRICS_TOKEN, or a scrape from this host', 'unauthorized');
    metrics.registry.metrics().then(
      (text) => {
        response.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' });
        response.end(text);
      },
      () => json(500, 'metrics could not be collected', 'internal'),
    );
  });
  server.listen(listener.port, listener.host);
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the worker metrics listener has no TCP address');
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { server, url: new URL(`http://${host}:${address.port}`) };
}
