import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import type { CurrencyRow } from '../../db/schema/currencies.js';
import { checkRecipient, type RecipientProblem } from '../../domain/addresses/recipient-check.js';
import { resolveCurrency } from '../../services/currency-resolve.js';
import { toJson } from '../../json.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { errorResponses } from '../schemas.js';

const Ticker = (description: string) =>
  Type.String({ minLength: 1, maxLength: 12, pattern: '^[A-Za-z0-9]+$', description });

const Query = Type.Object(
  {
    coin: Ticker('coin ticker (case-insensitive)'),
    network: Type.Optional(Ticker('network; required when the coin is on several networks')),
    address: Type.String({ minLength: 1, maxLength: 256, description: 'the recipient address to check' }),
    tag: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'memo or destination tag, where the network uses one' })),
  },
  { additionalProperties: false },
);

const Validation = Type.Object(
  {
    valid: Type.Boolean({ description: 'POST /partner/orders would accept this recipient_address (and recipient_address_tag)' }),
    detail: Type.Union([Type.String(), Type.Null()], { description: 'why not, in words for a person; null when valid' }),
    is_memo_required: Type.Boolean({ description: 'the network needs a memo or destination tag with the address' }),
  },
  { additionalProperties: false },
);

function describe(row: CurrencyRow, problem: RecipientProblem): string {
  switch (problem.problem) {
    case 'invalid_address':
      return `not a valid ${row.network} address: ${problem.reason}`;
    case 'memo_not_used':
      return `${row.network} does not use a memo: send no tag`;
    case 'invalid_tag':
      return `tag is not valid: ${problem.reason}`;
    case 'memo_required':
      return `${row.network} needs a memo or destination tag: send it as tag`;
  }
}

/**
 * GET /api/v1/partner/addresses/validate (public like the rates; a key is optional, docs/contract.md §7.3):
 * the recipient check of order creation, answered as a value.
 */
export function registerValidateAddress(app: App, { partnerAuth, catalog }: Services): void {
  app.get(
    '/api/v1/partner/addresses/validate',
    {
      preValidation: partnerAuth.optional,
      // docs/contract.md §10.9: public, so any web page may call it; a client key may too.
      config: { cors: 'any' },
      schema: {
        tags: ['partner'],
        summary: 'Check a recipient address (v1.1)',
        operationId: 'validateAddress',
        description:
          'The validators of POST /partner/orders for recipient_address and recipient_address_tag: checksums, network, memo rules. ' +
          'An unknown coin or network, or a coin on several networks without network, is 400.',
        security: [{}, { apiKeyHeader: [] }, { bearerAuth: [] }],
        querystring: Query,
        response: { 200: Validation, ...errorResponses(400, 401, 403, 429, 500) },
      },
    },
    async (request, reply) => {
      const { coin, network, address, tag } = request.query;
      const row = resolveCurrency(catalog.networksOf(coin.toUpperCase()), coin, network, { coin: 'coin', network: 'network' });
      const checked = checkRecipient(row, address, tag);
      return sendJsonText(
        reply,
        toJson({ valid: checked.ok, detail: checked.ok ? null : describe(row, checked), is_memo_required: row.is_memo }),
      );
    },
  );
}
