import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { errorResponses } from '../schemas.js';

/** GET /api/v1/currencies (public): every active currency (docs/contract.md §2.1), from memory. */
export function registerListCurrencies(app: App, { catalog, partnerAuth }: Services): void {
  app.get(
    '/api/v1/currencies',
    {
      // Public, but a key that is sent must be valid (never silently ignored).
      preValidation: partnerAuth.optional,
      // docs/contract.md §10.9: public, so any web page may call it; a client key may too.
      config: { cors: 'any' },
      schema: {
        tags: ['partner'],
        summary: 'List active currencies',
        operationId: 'listCurrencies',
        security: [],
        description:
          'One entry per coin and network pair, with per-order limits. is_deposit_enabled and is_withdraw_enabled say what an order can use now: ' +
          'a currency whose deposits or live payouts this server has not configured is listed disabled; a sandbox key sees withdrawals as its simulated orders can use them.',
        response: { 200: Type.Array(Type.Ref('Currency')), ...errorResponses(401, 403, 429, 500) },
      },
    },
    // Pre-serialized once per catalog change: exact decimals, no per-request work. A plain
    // (not async) handler that returns nothing: no promise per request.
    // A sandbox key sees the currencies its test orders can use (docs/adr/0023-money-paths.md).
    (request, reply) => {
      sendJsonText(reply, catalog.publicJson(request.access?.mode === 'sandbox'));
    },
  );
}
