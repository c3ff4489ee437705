import { Type } from '@sinclair/typebox';
import { Decimal } from '../../domain/money.js';
import type { App, Services } from '../../app-types.js';
import { toJson } from '../../json.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { errorResponses } from '../schemas.js';
import { adminSecurity } from './admin-schemas.js';

const PriceEntry = Type.Object({
  symbol: Type.String(),
  static_price_usd: Type.Union([Type.Number(), Type.Null()], { description: "the operator's table" }),
  static_updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  price_usd: Type.Union([Type.Number(), Type.Null()], { description: 'what quotes use now (median of fresh sources)' }),
  sources: Type.Array(Type.String()),
  outliers: Type.Array(Type.String()),
});

/** Every price symbol the catalog uses: the operator's table next to what quotes use now. */
export function registerListPrices(app: App, { staticPrices, catalog, prices }: Services): void {
  app.get(
    '/admin/v1/prices',
    {
      schema: {
        tags: ['admin'],
        summary: 'Static price table and the live aggregated prices',
        security: adminSecurity,
        response: { 200: Type.Array(PriceEntry), ...errorResponses(401, 500) },
      },
    },
    async (_request, reply) => {
      const table = new Map((await staticPrices.list()).map((row) => [row.symbol, row]));
      const symbols = [...new Set([...catalog.all().map((row) => row.price_symbol), ...table.keys()])].sort();
      const entries = symbols.map((symbol) => {
        const stored = table.get(symbol);
        const live = prices.getAggregatedPrice(symbol);
        return {
          symbol,
          static_price_usd: stored === undefined ? null : new Decimal(stored.price_usd),
          static_updated_at: stored?.updated_at.toISOString() ?? null,
          price_usd: live?.priceUsd ?? null,
          sources: live?.sources ?? [],
          outliers: live?.outliers ?? [],
        };
      });
      return sendJsonText(reply, toJson(entries));
    },
  );
}
