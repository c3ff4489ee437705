import { Type, type Static } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { listChainCursors } from '../../db/repositories/chain-cursors-repository.js';

const Health = Type.Object({ status: Type.String() });
/** How a chain's node watcher did on its last pass (written by the worker, wherever it runs). */
const ChainCheck = Type.Object({
  ok: Type.Boolean(),
  network: Type.Union([Type.String(), Type.Null()]),
  height: Type.Union([Type.Integer(), Type.Null()]),
  last_ok_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  last_error_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
const Ready = Type.Object({
  ready: Type.Boolean(),
  checks: Type.Object({
    database: Type.Boolean(),
    /** One entry per CHAIN_<CHAIN>_RPC_URL. Informational: a node outage never fails readiness. */
    chains: Type.Optional(Type.Record(Type.String(), ChainCheck)),
  }),
  /** Present when not ready, like every other non-2xx body. */
  detail: Type.Optional(Type.String()),
});

/**
 * Liveness says the process answers; readiness says it can serve (database reachable). Chain
 * nodes are reported but do not decide readiness: with a node down the API still quotes and
 * takes orders, deposits are only noticed later, and taking every API process out of the load
 * balancer would make that worse.
 */
export function registerHealth(app: App, { database, config }: Services): void {
  app.get('/healthz', { schema: { tags: ['operations'], response: { 200: Health } } }, async () => ({ status: 'ok' }));

  app.get(
    '/readyz',
    { schema: { tags: ['operations'], response: { 200: Ready, 503: Ready } } },
    async (_request, reply) => {
      const databaseUp = await database.ping(1000);
      if (!databaseUp) return reply.code(503).send({ ready: false, checks: { database: false }, detail: 'database unreachable' });
      const watched = Object.keys(config.chainRpcUrls);
      if (watched.length === 0) return { ready: true, checks: { database: true } };
      const rows = new Map((await listChainCursors(database.db).catch(() => [])).map((row) => [row.chain, row]));
      const chains: Record<string, Static<typeof ChainCheck>> = {};
      for (const chain of watched.sort()) {
        const row = rows.get(chain);
        const lastOk = row?.last_ok_at ?? null;
        const lastError = row?.last_error_at ?? null;
        chains[chain] = {
          ok: lastOk !== null && (lastError === null || lastOk > lastError),
          network: row?.network ?? null,
          height: row?.height ?? null,
          last_ok_at: lastOk?.toISOString() ?? null,
          last_error: row?.last_error ?? (row === undefined ? 'not polled yet' : null),
          last_error_at: lastError?.toISOString() ?? null,
        };
      }
      return { ready: true, checks: { database: true, chains } };
    },
  );
}
