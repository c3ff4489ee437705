import { Type } from '@sinclair/typebox';
import { Decimal } from '../../domain/money.js';
import type { App, Services } from '../../app-types.js';
import { DECIMAL_PATTERN, isStorableDecimal, parseDecimalInput } from '../../domain/money.js';
import { ApiError } from '../../errors.js';
import { toJson } from '../../json.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { errorResponses } from '../schemas.js';
import { adminSecurity } from './admin-schemas.js';

const Body = Type.Object(
  {
    price_usd: Type.Union([Type.String({ pattern: DECIMAL_PATTERN }), Type.Number({ exclusiveMinimum: 0 })], {
      description: 'USD per one whole coin; a string keeps more than 15 significant digits exact',
    }),
  },
  { additionalProperties: false },
);

const StaticPrice = Type.Object({
  symbol: Type.String(),
  price_usd: Type.Number(),
  updated_at: Type.String({ format: 'date-time' }),
});

/**
 * PUT /admin/v1/prices/{coin}: sets the `static` source's price of a price symbol. This process
 * re-polls at once; other processes pick it up on their next poll (PRICE_POLL_SECONDS).
 */
export function registerSetPrice(app: App, { staticPrices }: Services): void {
  app.put(
    '/admin/v1/prices/:coin',
    {
      schema: {
        tags: ['admin'],
        summary: "Set a coin's static USD price",
        security: adminSecurity,
        params: Type.Object({ coin: Type.String({ pattern: '^[A-Za-z0-9]{1,12}$' }) }),
        body: Body,
        response: { 200: StaticPrice, ...errorResponses(400, 401, 415, 500) },
      },
    },
    async (request, reply) => {
      const price = parseDecimalInput(request.body.price_usd);
      if (price === undefined || price.lte(0)) throw new ApiError('bad_request', 'price_usd must be a positive decimal');
      if (price.decimalPlaces() > 18) throw new ApiError('bad_request', 'price_usd has more than 18 decimals');
      if (!isStorableDecimal(price)) throw new ApiError('bad_request', 'price_usd must be below 1e20');
      const row = await staticPrices.set(request.params.coin, price);
      return sendJsonText(
        reply,
        toJson({ symbol: row.symbol, price_usd: new Decimal(row.price_usd), updated_at: row.updated_at.toISOString() }),
      );
    },
  );
}
