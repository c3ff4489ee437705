import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { toJson } from '../../json.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { errorResponses } from '../schemas.js';
import { adminSecurity } from './admin-schemas.js';

/**
 * GET /admin/v1/commissions?from=&to= (docs/contract.md §7.8): what the operator owes each partner for a
 * period: per partner with commission in it, the live orders exchanged (not failed), their USD
 * volume, the commission in USD and per coin; each figure the exact sum of what the orders
 * recorded at their exchange moment, so it equals the partner's own GET /partner/stats.
 */
export function registerCommissionsReport(app: App, { partnerStats }: Services): void {
  app.get(
    '/admin/v1/commissions',
    {
      schema: {
        tags: ['admin'],
        summary: 'Commission owed per partner for a period',
        security: adminSecurity,
        querystring: Type.Object(
          {
            from: Type.Optional(Type.String({ format: 'date-time', description: 'inclusive; default 30 days before to' })),
            to: Type.Optional(Type.String({ format: 'date-time', description: 'exclusive; default now' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({}, { additionalProperties: true }), ...errorResponses(400, 401, 500) },
      },
    },
    async (request, reply) => {
      const { from, to } = partnerStats.period(request.query);
      const report = await partnerStats.commissionReport(from, to);
      return sendJsonText(
        reply,
        toJson({
          from: from.toISOString(),
          to: to.toISOString(),
          partners: report.map((row) => ({
            partner_id: row.partnerId,
            name: row.name,
            orders: row.orders,
            volume_usd: row.volume_usd,
            commission_usd: row.usd,
            by_coin: row.by_coin,
          })),
        }),
      );
    },
  );
}
