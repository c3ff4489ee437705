import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { toJson } from '../../json.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { PERIOD_PATTERN } from '../../services/commission-payouts.js';
import { errorResponses } from '../schemas.js';
import { adminSecurity } from './admin-schemas.js';

const Amount = Type.String({ description: 'exact decimal, in the asset' });

/**
 * POST /admin/v1/commissions/payouts (docs/contract.md §11.6): pays a month's partner commission, one
 * signer payout per partner and asset, to each partner's payout address in force; run twice, it
 * pays once (the second run lists the same payouts, `created` false). Partners without an
 * address, or on a chain the signer does not pay, are listed as skipped: nothing failed.
 */
export function registerCommissionsPayouts(app: App, { commissionPayouts }: Services): void {
  app.post(
    '/admin/v1/commissions/payouts',
    {
      schema: {
        tags: ['admin'],
        summary: "Pay a month's partner commission through the signer (idempotent per partner, asset and month)",
        security: adminSecurity,
        body: Type.Object({ period: Type.String({ pattern: PERIOD_PATTERN, description: 'a month that is over, UTC: 2026-11' }) }, { additionalProperties: false }),
        response: {
          200: Type.Object(
            {
              period: Type.String(),
              payouts: Type.Array(
                Type.Object(
                  {
                    partner_id: Type.String({ format: 'uuid' }),
                    asset: Type.String(),
                    amount: Amount,
                    payout_id: Type.String({ format: 'uuid' }),
                    chain: Type.String(),
                    address: Type.String(),
                    status: Type.String(),
                    txid: Type.Union([Type.String(), Type.Null()]),
                    created: Type.Boolean({ description: 'made by this run; false when an earlier run made it' }),
                  },
                  { additionalProperties: false },
                ),
              ),
              skipped: Type.Array(
                Type.Object(
                  {
                    partner_id: Type.String({ format: 'uuid' }),
                    asset: Type.String(),
                    amount: Amount,
                    reason: Type.Union(['no_payout_address', 'no_payout_path', 'below_smallest_unit', 'unknown_asset'].map((reason) => Type.Literal(reason))),
                  },
                  { additionalProperties: false },
                ),
              ),
            },
            { additionalProperties: false },
          ),
          ...errorResponses(400, 401, 415, 500),
        },
      },
    },
    async (request, reply) => sendJsonText(reply, toJson(await commissionPayouts.pay(request.body.period))),
  );
}
