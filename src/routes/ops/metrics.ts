import type { App, Services } from '../../app-types.js';

/** Prometheus text exposition of this process's registry. */
export function registerMetricsEndpoint(app: App, { metrics }: Services): void {
  app.get(
    '/metrics',
    {
      schema: {
        tags: ['operations'],
        summary: 'Prometheus metrics',
        response: {
          200: {
            description: 'Prometheus text exposition format 0.0.4',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
        },
      },
    },
    async (_request, reply) => reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
}
