import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { ORDER_STATUSES } from '../../domain/order-status.js';
import { ApiError } from '../../errors.js';
import { toJson } from '../../json.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { errorResponses } from '../schemas.js';
import { timeFilter } from '../time-filter.js';
import { adminOrderView, adminSecurity } from './admin-schemas.js';

const Status = Type.Union(ORDER_STATUSES.map((status) => Type.Literal(status)));
/** The last order of a page: its created_at in milliseconds and its id (the operator is trusted: not signed). */
const CURSOR = /^(\d{1,15})\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
function readCursor(cursor: string): { createdAt: Date; id: string } {
  const match = CURSOR.exec(cursor);
  if (match?.[1] === undefined || match[2] === undefined) throw ApiError.field('bad_request', { code: 'bad_request', field: 'cursor' }, 'cursor is not one this list gave: start again without it');
  return { createdAt: new Date(Number(match[1])), id: match[2] };
}

/**
 * GET /admin/v1/orders: orders newest first, each with its partner's name, filtered by status,
 * partner, creation time and `q` (OrderLookup.search, the console's search too: id, short id in
 * any case with or without its prefix, address, txid, external id, partner, a cabinet person's
 * email). Pages by `cursor`: when more orders match, the answer's
 * `Link` header (RFC 8288, rel="next") is the next page's URL, so nothing is out of reach
 * (the CLI reached the newest 500 only). `offset` still works, for the callers that use it.
 */
export function registerAdminListOrders(app: App, { orderLookup, clock, linkBase }: Services): void {
  app.get(
    '/admin/v1/orders',
    {
      schema: {
        tags: ['admin'],
        summary: 'Orders, newest first, filtered by status, partner, creation time and identifier; paged by cursor (Link rel="next")',
        security: adminSecurity,
        querystring: Type.Object(
          {
            status: Type.Optional(Status),
            partner_id: Type.Optional(Type.String({ format: 'uuid' })),
            created_from: Type.Optional(Type.String({ format: 'date-time' })),
            created_to: Type.Optional(Type.String({ format: 'date-time' })),
            sandbox: Type.Optional(Type.Boolean({ description: 'true: sandbox (test) orders only; false: live only; absent: both' })),
            q: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 200,
                description:
                  "what a ticket quotes: order id, short id (any case, with or without the prefix), deposit/recipient/refund address or deposit/payout/refund txid (hex in any case), external id, matched exactly; the partner's id or a part of its name; the email of one of its cabinet people",
              }),
            ),
            cursor: Type.Optional(Type.String({ maxLength: 60, description: "the next page: from the last answer's Link header (rel=\"next\")" })),
            limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
            // PostgreSQL's OFFSET is a bigint: a larger number would fail the query (a 500).
            offset: Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0 }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: {
            ...Type.Array(Type.Object({}, { additionalProperties: true })),
            headers: { link: Type.String({ description: 'when more orders match: the next page, `</admin/v1/orders?…&cursor=…>; rel="next"` (RFC 8288)' }) },
          },
          ...errorResponses(400, 401, 500),
        },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const after = q.cursor === undefined ? undefined : readCursor(q.cursor);
      const rows = await orderLookup.search({
        status: q.status,
        partnerId: q.partner_id,
        createdFrom: q.created_from === undefined ? undefined : timeFilter('created_from', q.created_from),
        createdTo: q.created_to === undefined ? undefined : timeFilter('created_to', q.created_to),
        sandbox: q.sandbox,
        q: q.q,
        after,
        // One more than the page: whether a next page exists, without a count.
        limit: q.limit + 1,
        offset: q.offset,
      });
      const page = rows.slice(0, q.limit);
      const last = page[page.length - 1];
      if (rows.length > q.limit && last !== undefined) {
        const next = new URLSearchParams(request.query as unknown as Record<string, string>);
        next.delete('offset');
        next.set('cursor', `${last.created_at.getTime()}.${last.id}`);
        reply.header('link', `</admin/v1/orders?${next.toString()}>; rel="next"`);
      }
      const now = clock.now();
      return sendJsonText(reply, toJson(page.map((row) => ({ ...adminOrderView(row, now, linkBase), partner_name: row.partner_name }))));
    },
  );
}
