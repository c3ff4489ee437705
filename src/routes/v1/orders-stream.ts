import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { ApiError } from '../../errors.js';
import { partnerAccess } from '../../plugins/partner-auth.js';
import { orderIdList } from '../../services/order-service.js';
import { errorResponses } from '../schemas.js';
import { sendStream, STREAM_RESPONSES, streamOpener } from './stream-reply.js';

/** At most this many orders per stream (docs/contract.md §10.11). */
export const STREAM_MAX_IDS = 50;

/**
 * GET /api/v1/partner/orders/stream?ids= (API key; docs/contract.md §10.11): a Server-Sent Events stream
 * of up to 50 of the key's orders (a client key: the orders it created). Each order's first event
 * is its current state, then one `order` event per version, the Order exactly as GET
 * /partner/orders/{id} answered it; `Last-Event-ID` resumes where the reader was
 * (services/order-streams.ts).
 */
export function registerOrderStream(app: App, { partnerAuth, orderStreams }: Services): void {
  app.get(
    '/api/v1/partner/orders/stream',
    {
      preValidation: partnerAuth.required,
      config: { cors: 'partner' },
      schema: {
        tags: ['partner'],
        summary: 'Live status of orders (Server-Sent Events)',
        operationId: 'streamOrders',
        description:
          'v1.2: `text/event-stream` of up to 50 orders (UUIDs, comma-separated). Each order\'s first event is its current state, ' +
          'then one `order` event per version (data: the Order exactly as GET /partner/orders/{order_id} answers it; `id:` ' +
          '{order id}:{version}). Send the last event\'s id back as `Last-Event-ID` when reconnecting: every later version comes, ' +
          'once and in order (one `{order id}:{version}` per order, comma-separated, resumes each of them). A `: ping` comment ' +
          'every 15 s; the stream ends once every order in it is final. Ids that are no order of the key are left out; none: 404. ' +
          'Open streams are capped per key, per client address and per server (429).',
        security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
        querystring: Type.Object(
          { ids: Type.String({ minLength: 1, maxLength: 2000, description: 'order UUIDs, comma-separated, at most 50' }) },
          { additionalProperties: false },
        ),
        headers: Type.Object({
          'last-event-id': Type.Optional(Type.String({ description: '`{order id}:{version}` of the last event received (comma-separated: one per order)' })),
        }),
        response: { ...STREAM_RESPONSES, ...errorResponses(400, 401, 403, 404, 429, 500, 503) },
      },
    },
    async (request, reply) => {
      const asked = request.query.ids.split(',').filter((id) => id.trim() !== '');
      if (asked.length > STREAM_MAX_IDS) {
        throw ApiError.field('bad_request', { code: 'bad_request', field: 'ids' }, `at most ${STREAM_MAX_IDS} orders per stream, got ${asked.length}: open another stream for the rest`);
      }
      const ids = orderIdList(asked);
      if (ids.length === 0) throw new ApiError('not_found', 'none of these ids is an order id (a UUID): nothing to stream');
      const stream = await orderStreams.openPartner(partnerAccess(request), ids, streamOpener(request, reply));
      return sendStream(reply, stream);
    },
  );
}
