import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { toJson } from '../../json.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { errorResponses } from '../schemas.js';
import { adminSecurity } from './admin-schemas.js';
import { TrialBalanceSchema } from './ledger-schemas.js';

/**
 * GET /admin/v1/ledger/trial-balance[?at=] (docs/contract.md §11.5): every account's balance per asset,
 * live and sandbox, over the ledger transactions posted at or before `at` (default: all), and
 * per asset the total of every account, "0" in books that balance (the database sees to it).
 */
export function registerLedgerTrialBalance(app: App, { ledger }: Services): void {
  app.get(
    '/admin/v1/ledger/trial-balance',
    {
      schema: {
        tags: ['admin'],
        summary: 'Trial balance: every account per asset, and totals that are zero',
        security: adminSecurity,
        querystring: Type.Object(
          { at: Type.Optional(Type.String({ format: 'date-time', description: 'the balance as of this moment (inclusive); default now' })) },
          { additionalProperties: false },
        ),
        response: { 200: TrialBalanceSchema, ...errorResponses(400, 401, 500) },
      },
    },
    async (request, reply) => sendJsonText(reply, toJson(await ledger.trialBalance(ledger.moment(request.query.at)))),
  );
}
