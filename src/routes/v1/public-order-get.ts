import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { sendJsonTextTagged } from '../../plugins/json-reply.js';
import { errorResponses, NotModified } from '../schemas.js';

/**
 * GET /api/v1/public/orders/{token} (no key; docs/contract.md §10.10): the order behind a status link, as
 * its end user may see it; the JSON twin of the page /status/{token} (what a wallet's order link
 * points to). Any web page may read it (CORS `*`); anonymous rate limits apply.
 */
export function registerGetPublicOrder(app: App, { orderReads }: Services): void {
  app.get(
    '/api/v1/public/orders/:token',
    {
      config: { cors: 'any' },
      schema: {
        tags: ['partner'],
        summary: "An order's public status (the status link's JSON)",
        operationId: 'getPublicOrder',
        description:
          'v1.2: no key. The token is the last part of the Order\'s status_url. Answers the order\'s amounts, addresses and status only ' +
          '(amounts as the Order writes them); any other token is 404.',
        security: [],
        params: Type.Object({
          // No pattern: a token of any other form is an unknown link (404), not a bad request.
          token: Type.String({ description: "the last part of the Order's status_url" }),
        }),
        response: { 200: { $ref: 'PublicOrder#' }, 304: NotModified, ...errorResponses(404, 429, 500) },
      },
    },
    async (request, reply) => {
      const order = await orderReads.readPublic(request.params.token);
      // The status changes as the order moves: always asked again, never kept by a shared cache
      // (a client may still ask with If-None-Match: 304 while it is unchanged).
      reply.header('cache-control', 'no-store');
      return sendJsonTextTagged(request, reply, order.json, order.etag);
    },
  );
}
