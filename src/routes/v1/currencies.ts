import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { errorResponses } from '../schemas.js';

/** GET /api/v1/currencies (public): every active currency, spec 2.1, from memory. */
export function registerListCurrencies(app: App, { catalog, partnerAuth }: Services): void {
  app.get(
    '/api/v1/currencies',
    {
      // Public, but a key that is sent must be valid (never silently ignored).
      preValidation: partnerAuth.optional,
      schema: {
        tags: ['partner'],
        summary: 'List active currencies',
        operationId: 'listCurrencies',
        security: [],
        description: 'One entry per coin and network pair, with per-order limits.',
        response: { 200: Type.Array(Type.Ref('Currency')), ...errorResponses(401, 403, 429, 500) },
      },
    },
    // Pre-serialized once per catalog change: exact decimals, no per-request work. A plain
    // (not async) handler that returns nothing: no promise per request.
    (_request, reply) => {
      sendJsonText(reply, catalog.publicJson());
    },
  );
}
