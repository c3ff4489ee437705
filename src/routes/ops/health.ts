import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';

const Health = Type.Object({ status: Type.String() });
const Ready = Type.Object({
  ready: Type.Boolean(),
  checks: Type.Object({ database: Type.Boolean() }),
  /** Present when not ready, like every other non-2xx body. */
  detail: Type.Optional(Type.String()),
});

/** Liveness says the process answers; readiness says it can serve (database reachable). */
export function registerHealth(app: App, { database }: Services): void {
  app.get('/healthz', { schema: { tags: ['operations'], response: { 200: Health } } }, async () => ({ status: 'ok' }));

  app.get(
    '/readyz',
    { schema: { tags: ['operations'], response: { 200: Ready, 503: Ready } } },
    async (_request, reply) => {
      const databaseUp = await database.ping(1000);
      if (databaseUp) return { ready: true, checks: { database: true } };
      return reply.code(503).send({ ready: false, checks: { database: false }, detail: 'database unreachable' });
    },
  );
}
