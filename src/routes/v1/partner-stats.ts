import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { ORDER_STATUSES } from '../../domain/order-status.js';
import { toJson } from '../../json.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { partnerAccess } from '../../plugins/partner-auth.js';
import { errorResponses } from '../schemas.js';

const CoinCommission = Type.Object(
  {
    coin: Type.String(),
    amount: Type.Number({ description: 'sum of partner_fee.amount in this coin' }),
    usd: Type.Number({ description: 'sum of partner_fee.usd of those orders' }),
  },
  { additionalProperties: false },
);

export const PartnerStatsSchema = Type.Object(
  {
    from: Type.String({ format: 'date-time' }),
    to: Type.String({ format: 'date-time' }),
    orders_by_status: Type.Object(
      Object.fromEntries(ORDER_STATUSES.map((status) => [status, Type.Integer({ minimum: 0 })])),
      { additionalProperties: false, description: 'the key\'s mode\'s orders (live, or a sandbox key\'s test orders) created in the period, by status as read now' },
    ),
    volume_usd: Type.Number({ description: 'USD value of what the period\'s exchanges received, at their exchange moment' }),
    commission: Type.Object(
      {
        orders: Type.Integer({ minimum: 0, description: 'the key\'s mode\'s orders exchanged in the period, not failed' }),
        usd: Type.Number({ description: 'sum of partner_fee.usd: exactly what those orders recorded' }),
        by_coin: Type.Array(CoinCommission),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

/**
 * GET /api/v1/partner/stats?from=&to= (API key, docs/contract.md §7.8): the caller's orders of the key's
 * mode (docs/contract.md §10.2: live for a live key, the test orders for a sandbox key) over [from, to) (default the last 30 days, at most 366): counts by status (by creation
 * time), volume in USD and commission by coin and in USD (by exchange moment, orders not
 * failed). The commission is the sum of the orders' partner_fee to the last decimal.
 */
export function registerPartnerStats(app: App, { partnerAuth, partnerStats }: Services): void {
  app.get(
    '/api/v1/partner/stats',
    {
      preValidation: partnerAuth.required,
      schema: {
        tags: ['partner'],
        operationId: 'getPartnerStats',
        summary: 'Counts, volume and commission over a period',
        security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
        querystring: Type.Object(
          {
            from: Type.Optional(Type.String({ format: 'date-time', description: 'ISO 8601, inclusive; default 30 days before to' })),
            to: Type.Optional(Type.String({ format: 'date-time', description: 'ISO 8601, exclusive; default now' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: PartnerStatsSchema, ...errorResponses(400, 401, 403, 429, 500) },
      },
    },
    async (request, reply) => {
      const { from, to } = partnerStats.period(request.query);
      const { ordersByStatus, commission } = await partnerStats.partnerStats(partnerAccess(request), from, to);
      return sendJsonText(
        reply,
        toJson({
          from: from.toISOString(),
          to: to.toISOString(),
          orders_by_status: ordersByStatus,
          volume_usd: commission.volume_usd,
          commission: { orders: commission.orders, usd: commission.usd, by_coin: commission.by_coin },
        }),
      );
    },
  );
}
