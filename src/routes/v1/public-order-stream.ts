import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { errorResponses } from '../schemas.js';
import { sendStream, STREAM_RESPONSES, streamOpener } from './stream-reply.js';

/**
 * GET /api/v1/public/orders/{token}/stream (no key; docs/contract.md §10.11): the status link's order as
 * Server-Sent Events, each event the public view GET /api/v1/public/orders/{token} answers; what
 * the status page (/status/{token}) listens to when its script runs. Any web page may read it.
 */
export function registerPublicOrderStream(app: App, { orderStreams }: Services): void {
  app.get(
    '/api/v1/public/orders/:token/stream',
    {
      config: { cors: 'any' },
      schema: {
        tags: ['partner'],
        summary: "An order's public status, live (Server-Sent Events)",
        operationId: 'streamPublicOrder',
        description:
          'v1.2: no key. `text/event-stream`: the first event is the order\'s current public status, then one `order` event per ' +
          'version (data: as GET /api/v1/public/orders/{token} answers it; `id:` {order id}:{version}). `Last-Event-ID` resumes; a ' +
          '`: ping` comment every 15 s; the stream ends once the order is final. Any other token is 404; open streams are capped per ' +
          'client address and per server (429).',
        security: [],
        params: Type.Object({ token: Type.String({ description: "the last part of the Order's status_url" }) }),
        headers: Type.Object({
          'last-event-id': Type.Optional(Type.String({ description: '`{order id}:{version}` of the last event received' })),
        }),
        response: { ...STREAM_RESPONSES, ...errorResponses(404, 429, 500, 503) },
      },
    },
    async (request, reply) => {
      const stream = await orderStreams.openPublic(request.params.token, streamOpener(request, reply));
      return sendStream(reply, stream);
    },
  );
}
