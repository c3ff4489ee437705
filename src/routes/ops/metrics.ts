import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';
import type { App, Services } from '../../app-types.js';
import { ApiError } from '../../errors.js';
import { errorResponses } from '../schemas.js';

/** Headers a proxy adds: a request carrying one was relayed, so its loopback peer proves nothing. */
const PROXY_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'] as const;

function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
  return plain === '::1' || (isIP(plain) === 4 && plain.startsWith('127.'));
}

/**
 * Who may scrape: the bearer METRICS_TOKEN from anywhere, or a scraper on this host (loopback
 * peer, the client address Fastify derives agreeing, and no proxy header: a proxy on the same
 * host relaying the internet must not count as local). Metrics name routes, volumes and error
 * rates, which nobody outside should read (issue 12: /metrics was public).
 */
function metricsGuard(token: string | undefined): (request: FastifyRequest) => Promise<void> {
  const expected = token === undefined ? undefined : createHash('sha256').update(token).digest();
  return async (request) => {
    const match = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '');
    if (expected !== undefined && match !== null) {
      if (timingSafeEqual(createHash('sha256').update(match[1] ?? '').digest(), expected)) return;
      throw new ApiError('unauthorized', 'invalid metrics token');
    }
    const local = isLoopback(request.socket.remoteAddress) && isLoopback(request.ip) && PROXY_HEADERS.every((name) => request.headers[name] === undefined);
    if (!local) throw new ApiError('unauthorized', 'metrics need the bearer METRICS_TOKEN, or a scrape from this host');
    return Promise.resolve();
  };
}

/** Prometheus text exposition of this process's registry (gauges read cached values: no query per scrape). */
export function registerMetricsEndpoint(app: App, { metrics, config }: Services): void {
  app.get(
    '/metrics',
    {
      onRequest: metricsGuard(config.operator.metricsToken),
      schema: {
        tags: ['operations'],
        summary: 'Prometheus metrics',
        description: 'Bearer METRICS_TOKEN, or a scrape from loopback without proxy headers.',
        security: [{ metricsToken: [] }, {}],
        response: {
          200: {
            description: 'Prometheus text exposition format 0.0.4',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
          ...errorResponses(401),
        },
      },
    },
    async (_request, reply) => reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
}
