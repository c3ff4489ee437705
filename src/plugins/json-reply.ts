import type { FastifyReply } from 'fastify';

/**
 * Sends JSON text that was serialized on purpose (exact decimals via toJson, or a cached
 * body). The route's response schema still documents the shape for OpenAPI.
 */
export function sendJsonText(reply: FastifyReply, body: string | Buffer, status = 200): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}
