import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Sends JSON text that was serialized on purpose (exact decimals via toJson, or a cached
 * body). The route's response schema still documents the shape for OpenAPI.
 */
export function sendJsonText(reply: FastifyReply, body: string | Buffer, status = 200): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}

/**
 * JSON text with its ETag, or 304 Not Modified without a body when the request's If-None-Match
 * names that ETag (RFC 9110 §13.1.2: weak comparison, a list, or `*`): a client polling an
 * order that did not change gets no body (docs/adr/0057-order-read-cache.md).
 */
export function sendJsonTextTagged(request: FastifyRequest, reply: FastifyReply, body: string, etag: string): FastifyReply {
  reply.header('etag', etag);
  const asked = request.headers['if-none-match'];
  if (asked !== undefined && noneMatchNames(asked, etag)) return reply.code(304).send();
  return sendJsonText(reply, body);
}

/** Whether an If-None-Match value names `etag` (a strong, quoted tag). */
function noneMatchNames(header: string, etag: string): boolean {
  for (const part of header.split(',')) {
    const tag = part.trim();
    if (tag === '*' || tag === etag || (tag.startsWith('W/') && tag.slice(2) === etag)) return true;
  }
  return false;
}
