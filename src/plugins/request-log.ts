import type { FastifyInstance } from 'fastify';
import type { RequestLog } from '../services/request-log.js';
import { errorCodeOf } from './error-handler.js';

/**
 * Records each answered request made with an API key in the partner's request log: method,
 * path (the query string left out: it may carry addresses), status, latency and error code;
 * never a header or a body. `record` only pushes onto the log's batch (services/request-log.ts).
 */
export function installRequestLog(app: FastifyInstance, log: RequestLog): void {
  app.addHook('onResponse', (request, reply, done) => {
    const caller = request.caller;
    if (caller?.kind === 'partner') {
      const url = request.url;
      const query = url.indexOf('?');
      log.record({
        partner_id: caller.partner.id,
        key_id: caller.keyId,
        sandbox: caller.sandbox,
        method: request.method.slice(0, 16),
        path: (query < 0 ? url : url.slice(0, query)).slice(0, 512),
        status: reply.statusCode,
        duration_ms: Math.max(0, Math.round(reply.elapsedTime)),
        error_code: errorCodeOf(reply) ?? null,
      });
    }
    done();
  });
}
