import type { FastifyInstance } from 'fastify';
import type { LagTolerantReads } from '../services/replica-reads.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * After a partner's write (any POST, PUT, PATCH or DELETE an API key or a cabinet session made,
 * answered below 400), its WAL position is recorded before the answer leaves
 * (services/replica-reads.ts): the partner's next read, whatever it is, cannot reach the replica
 * before the replica has replayed it. One hook rather than a call in each service, so a new
 * write route is covered without anyone remembering to.
 */
export function installWriteMarks(app: FastifyInstance, reads: LagTolerantReads): void {
  app.addHook('onSend', async (request, reply, payload) => {
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
  });
}
