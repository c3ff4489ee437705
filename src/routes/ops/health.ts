import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';

const Health = Type.Object({ status: Type.String() });
const Ready = Type.Object(
  {
    ready: Type.Boolean(),
    checks: Type.Object(
      {
        database: Type.Boolean(),
        /** Present with REDIS_URL. Informational: never fails readiness. */
        redis: Type.Optional(Type.Boolean()),
        /** A lifecycle and a webhook worker loop each ticked within 60 s. Informational: never fails readiness. */
        workers: Type.Boolean(),
        /** One entry per CHAIN_<CHAIN>_RPC_URL, by chain name. Informational: never fails readiness. */
        chains: Type.Optional(Type.Record(Type.String(), Type.Boolean())),
      },
      { additionalProperties: false },
    ),
    /** Present when not ready, like every other non-2xx body. */
    detail: Type.Optional(Type.String()),
  },
  { additionalProperties: false, description: 'ready or not, and each dependency by name; the details are in the operator API' },
);

/**
 * Liveness says the process answers; readiness says it can serve (database reachable). Chain
 * nodes are reported but do not decide readiness: with a node down the API still quotes and
 * takes orders, deposits are only noticed later, and taking every API process out of the load
 * balancer would make that worse. Anyone can read these, so they name dependencies and say ok
 * or not, nothing more: errors, heights, lags and node hosts are the operator's
 * (GET /admin/v1/health).
 */
export function registerHealth(app: App, { readiness, drain }: Services): void {
  app.get('/healthz', { schema: { tags: ['operations'], summary: 'Liveness', operationId: 'getHealth', security: [], response: { 200: Health } } }, async () => ({ status: 'ok' }));

  app.get(
    '/readyz',
    { schema: { tags: ['operations'], summary: 'Readiness, by dependency', operationId: 'getReadiness', security: [], response: { 200: Ready, 503: Ready } } },
    async (_request, reply) => {
      const report = await readiness.report();
      const chainNames = Object.keys(report.chains);
      const checks = {
        database: report.database.ok,
        ...(report.redis === null ? {} : { redis: report.redis.ok }),
        workers: report.workers_ok,
        ...(chainNames.length === 0 ? {} : { chains: Object.fromEntries(chainNames.map((chain) => [chain, report.chains[chain]?.ok === true])) }),
      };
      if (!report.ready) return reply.code(503).send({ ready: false, checks, detail: 'database unreachable' });
      // A graceful stop has begun (SIGTERM): still serving, but the load balancer should move on.
      if (drain.draining) return reply.code(503).send({ ready: false, checks, detail: 'shutting down' });
      return { ready: true, checks };
    },
  );
}
