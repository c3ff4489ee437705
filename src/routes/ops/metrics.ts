import type { FastifyRequest } from 'fastify';
import type { App, Services } from '../../app-types.js';
import { ApiError } from '../../errors.js';
import { metricsAccess } from '../../metrics-access.js';
import { metricsText } from '../../metrics-cluster.js';
import { errorResponses } from '../schemas.js';

/** The scrape access rule (src/metrics-access.ts) as an onRequest hook. */
function metricsGuard(token: string | undefined): (request: FastifyRequest) => Promise<void> {
  const verdict = metricsAccess(token);
  return async (request) => {
    const decided = verdict({ headers: request.headers, remoteAddress: request.socket.remoteAddress, ip: request.ip });
    if (decided === 'invalid_token') throw new ApiError('unauthorized', 'invalid metrics token');
    if (decided === 'denied') throw new ApiError('unauthorized', 'metrics need the bearer METRICS_TOKEN, or a scrape from this host');
    return Promise.resolve();
  };
}

/**
 * Prometheus text exposition of this process's registry, or under a WEB_CONCURRENCY primary of
 * every API process's, aggregated (src/metrics-cluster.ts). Gauges read cached values: no query
 * per scrape.
 */
export function registerMetricsEndpoint(app: App, { metrics, config }: Services): void {
  const text = metricsText(metrics.registry);
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
          ...errorResponses(401, 503),
        },
      },
    },
    async (request, reply) => {
      let body: string;
      try {
        body = await text();
      } catch (error) {
        request.log.error({ err: error }, 'gathering the cluster\'s metrics failed');
        throw new ApiError('unavailable', 'metrics could not be gathered from every API process; retry');
      }
      return reply.type(metrics.registry.contentType).send(body);
    },
  );
}
