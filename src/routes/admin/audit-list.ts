import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import type { OperatorAuditRow } from '../../db/schema/operator-audit.js';
import { csvField, csvRecord } from '../../domain/csv.js';
import { ApiError } from '../../errors.js';
import { toJson } from '../../json.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { prefersCsv } from '../content-negotiation.js';
import { timeFilter } from '../time-filter.js';
import { errorResponses } from '../schemas.js';
import { adminSecurity } from './admin-schemas.js';

const Entry = Type.Object(
  {
    id: Type.String(),
    actor: Type.String({ description: 'who: `token:ADMIN_TOKEN` for the bootstrap token' }),
    action: Type.String({ description: 'the method and route, e.g. `PATCH /admin/v1/currencies/:id`' }),
    target: Type.Union([Type.String(), Type.Null()], { description: 'on what, e.g. `orders/<id>`' }),
    before: Type.Unknown({ description: 'the target before, where the route has one (credentials never written)' }),
    after: Type.Unknown({ description: 'the target after; else what a create answered, or the body asked' }),
    status: Type.Integer({ description: 'the answer: a refused action is recorded too' }),
    at: Type.String({ format: 'date-time' }),
    ip: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
);

const CSV_COLUMNS = ['at', 'actor', 'action', 'target', 'status', 'ip', 'before', 'after'] as const;

function view(row: OperatorAuditRow): Record<string, unknown> {
  return { id: String(row.id), actor: row.actor, action: row.action, target: row.target, before: row.before ?? null, after: row.after ?? null, status: row.status, at: row.at.toISOString(), ip: row.ip };
}

/**
 * GET /admin/v1/audit (docs/contract.md §12): the operator audit log, newest first, filtered by actor,
 * action or target prefix and time; paged by `cursor` (the last page's `next_cursor`); JSON, or
 * CSV when Accept prefers text/csv (before and after as JSON text).
 */
export function registerAuditList(app: App, { operatorAudit }: Services): void {
  app.get(
    '/admin/v1/audit',
    {
      schema: {
        tags: ['admin'],
        summary: 'The operator audit log (JSON, or CSV by Accept)',
        security: adminSecurity,
        querystring: Type.Object(
          {
            actor: Type.Optional(Type.String({ maxLength: 200 })),
            action: Type.Optional(Type.String({ maxLength: 200, description: 'a prefix, e.g. `POST /admin/v1/orders`' })),
            target: Type.Optional(Type.String({ maxLength: 200, description: 'a prefix, e.g. `orders/<id>`' })),
            from: Type.Optional(Type.String({ format: 'date-time' })),
            to: Type.Optional(Type.String({ format: 'date-time' })),
            cursor: Type.Optional(Type.String({ pattern: '^[0-9]{1,18}$' })),
            limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: {
            description: 'the entries (JSON), or the same as CSV',
            content: {
              'application/json': { schema: Type.Object({ entries: Type.Array(Entry), next_cursor: Type.Union([Type.String(), Type.Null()]) }) },
              'text/csv': { schema: { type: 'string' } },
            },
          },
          ...errorResponses(400, 401, 500),
        },
      },
    },
    async (request, reply) => {
      const query = request.query;
      const from = query.from === undefined ? undefined : timeFilter('from', query.from);
      const to = query.to === undefined ? undefined : timeFilter('to', query.to);
      if (from !== undefined && to !== undefined && from >= to) throw ApiError.field('bad_request', { code: 'bad_request', field: 'to' }, 'to must be after from');
      const rows = await operatorAudit.list({ actor: query.actor, action: query.action, target: query.target, from, to, beforeId: query.cursor, limit: query.limit });
      if (prefersCsv(request.headers.accept)) {
        const json = (value: unknown): string | null => (value === null || value === undefined ? null : JSON.stringify(value));
        const lines = rows.map((row) =>
          csvRecord([
            csvField(row.at.toISOString()),
            csvField(row.actor, 'text'),
            csvField(row.action, 'text'),
            csvField(row.target, 'text'),
            csvField(String(row.status)),
            csvField(row.ip, 'text'),
            csvField(json(row.before), 'text'),
            csvField(json(row.after), 'text'),
          ]),
        );
        return reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="operator-audit.csv"').send(csvRecord([...CSV_COLUMNS]) + lines.join(''));
      }
      const last = rows.length === query.limit ? rows[rows.length - 1] : undefined;
      return sendJsonText(reply, toJson({ entries: rows.map(view), next_cursor: last === undefined ? null : String(last.id) }));
    },
  );
}
