import type { FastifyInstance, onSendAsyncHookHandler } from 'fastify';
import type { LagTolerantReads } from '../services/replica-reads.js';

const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * After a partner's write (any POST, PUT, PATCH or DELETE an API key or a cabinet session made,
 * answered below 400), its WAL position is recorded before the answer leaves
 * (services/replica-reads.ts): the partner's next read, whatever it is, cannot reach the replica
 * before the replica has replayed it. One hook rather than a call in each service, so a new
 * write route is covered without anyone remembering to.
 *
 * The hook is added, when each route is, to the routes that answer a writing method only: an
 * app-wide async onSend hook made every answer, the GETs wallets poll all day included, pay a
 * promise and a microtask for a check that is false on a safe method (bench/README.md, "the per-request plumbing").
 * A request no route took never wrote (its 404 is >= 400 anyway).
 */
export function installWriteMarks(app: FastifyInstance, reads: LagTolerantReads): void {
  const mark: onSendAsyncHookHandler = async (request, reply, payload) => {
    // A route may answer safe and writing methods alike (one route for GET and POST).
    if (SAFE_METHODS.has(request.method) || reply.statusCode >= 400) return payload;
    const partnerId = request.partner?.id ?? request.cabinetSession?.partnerId;
    if (partnerId === undefined) return payload;
    try {
      await reads.wrote(partnerId);
    } catch (error) {
      // The write stands and is answered; only its replica routing is at risk, which the log says.
      request.log.error({ err: error }, 'read replica: the partner\'s write position could not be read from the primary');
    }
    return payload;
  };
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.every((method) => SAFE_METHODS.has(method.toUpperCase()))) return;
    route.onSend = [...(route.onSend === undefined ? [] : [route.onSend].flat()), mark];
  });
}
