import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { toJson } from '../../json.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { LedgerReports } from '../../services/ledger-reports.js';
import { prefersCsv } from '../content-negotiation.js';
import { errorResponses } from '../schemas.js';
import { adminSecurity } from './admin-schemas.js';
import { LedgerLineSchema } from './ledger-schemas.js';

/**
 * GET /admin/v1/ledger/entries?from=&to= (docs/contract.md §11.5): the lines of the ledger transactions
 * posted in a period, for the accountant, in the order they were posted: JSON, or CSV when the
 * Accept header prefers `text/csv` (same columns, a header record, RFC 4180).
 */
export function registerLedgerEntries(app: App, { ledger }: Services): void {
  app.get(
    '/admin/v1/ledger/entries',
    {
      schema: {
        tags: ['admin'],
        summary: 'Ledger lines of a period, as JSON or CSV (Accept: text/csv)',
        security: adminSecurity,
        querystring: Type.Object(
          {
            from: Type.Optional(Type.String({ format: 'date-time', description: 'inclusive; default 30 days before to' })),
            to: Type.Optional(Type.String({ format: 'date-time', description: 'exclusive; default now' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: {
            description: 'the lines (JSON), or the same as CSV',
            content: {
              'application/json': {
                schema: Type.Object(
                  { from: Type.String({ format: 'date-time' }), to: Type.String({ format: 'date-time' }), entries: Type.Array(LedgerLineSchema) },
                  { additionalProperties: false },
                ),
              },
              'text/csv': { schema: { type: 'string' } },
            },
          },
          ...errorResponses(400, 401, 500),
        },
      },
    },
    async (request, reply) => {
      const { from, to } = ledger.period(request.query);
      const lines = await ledger.lines(from, to);
      if (prefersCsv(request.headers.accept)) {
        const name = `ledger-${from.toISOString().slice(0, 10)}-${to.toISOString().slice(0, 10)}.csv`;
        return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${name}"`).send(LedgerReports.csv(lines));
      }
      return sendJsonText(reply, toJson({ from: from.toISOString(), to: to.toISOString(), entries: lines }));
    },
  );
}
