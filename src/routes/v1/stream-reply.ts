import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OrderStream } from '../../services/order-stream.js';
import type { StreamOpener } from '../../services/order-streams.js';

/**
 * What the two status stream routes share (docs/contract.md §10.11): who opens the stream, and how it is
 * answered: `text/event-stream`, never stored by a cache or buffered by a proxy; 204 when every
 * order is final and the reader has seen all of it (an EventSource stops reconnecting on 204).
 */

export function streamOpener(request: FastifyRequest, reply: FastifyReply): StreamOpener {
  const lastEventId = request.headers['last-event-id'];
  return {
    address: request.ip,
    socketBuffered: () => reply.raw.writableLength,
    lastEventId: typeof lastEventId === 'string' ? lastEventId : undefined,
  };
}

export function sendStream(reply: FastifyReply, stream: OrderStream): FastifyReply {
  reply.header('cache-control', 'no-store');
  if (stream.isEnded && stream.writtenCount === 0) {
    // Never read by anyone: destroyed, so it lets go of its place at once.
    stream.body.destroy();
    return reply.code(204).send();
  }
  return reply
    .type('text/event-stream; charset=utf-8')
    // nginx and its kin would otherwise hold the events back until a buffer fills.
    .header('x-accel-buffering', 'no')
    .send(stream.body);
}

/** The 200 and 204 of a stream route's schema. */
export const STREAM_RESPONSES = {
  200: {
    description:
      'Server-Sent Events: `event: order`, `id: {order id}:{version}`, `data:` the order as JSON; a `: ping` comment every 15 s; ' +
      'the stream ends once every order in it is final',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  },
  204: { description: 'every order is final and Last-Event-ID shows the reader has all of it: nothing more will come', type: 'null' },
} as const;
