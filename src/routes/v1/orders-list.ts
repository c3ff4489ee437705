import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { isOrderStatus, ORDER_STATUSES, type OrderStatus } from '../../domain/order-status.js';
import { partnerOrderListJson } from '../../views/partner-order-view.js';
import { ApiError } from '../../errors.js';
import { writeString } from '../../json.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { partnerAccess } from '../../plugins/partner-auth.js';
import { ORDER_PAGE_DEFAULT, ORDER_PAGE_MAX, OrderList } from '../../services/order-list.js';
import { errorResponses } from '../schemas.js';
import { timeFilter } from '../time-filter.js';

const Ticker = (description: string) =>
  Type.String({ minLength: 1, maxLength: 12, pattern: '^[A-Za-z0-9]+$', description });

const Query = Type.Object(
  {
    status: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: `comma-separated statuses as GET /partner/orders/{id} shows them: ${ORDER_STATUSES.join(', ')}`,
      }),
    ),
    coin_from: Type.Optional(Ticker('source coin ticker (case-insensitive)')),
    coin_to: Type.Optional(Ticker('destination coin ticker (case-insensitive)')),
    created_after: Type.Optional(Type.String({ format: 'date-time', description: 'ISO 8601; orders created strictly after' })),
    created_before: Type.Optional(Type.String({ format: 'date-time', description: 'ISO 8601; orders created strictly before' })),
    search: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        description:
          'exact match on id, short id (both in any case), deposit address, deposit txid, payout txid or recipient address; ' +
          'hex values (0x EVM addresses, 64-digit transaction hashes) match in any case, all others (base58, bech32) as written',
      }),
    ),
    sandbox: Type.Optional(
      Type.Boolean({
        description:
          'v1.1; v1.2 (docs/contract.md §10.2): the list follows the key\'s mode (a sandbox key lists its test orders, a live key its live ones), ' +
          'so this may be left out; given, it must name the key\'s own mode (otherwise 400)',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: ORDER_PAGE_MAX, default: ORDER_PAGE_DEFAULT })),
    cursor: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'next_cursor of the previous page, with the same key' }),
    ),
  },
  { additionalProperties: false },
);

const OrderPage = Type.Object(
  {
    orders: Type.Array(Type.Ref('Order'), { description: 'newest first (created_at, then id)' }),
    next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'pass as cursor for the next page; null on the last' }),
  },
  { additionalProperties: false },
);

function parseStatuses(text: string): OrderStatus[] {
  const statuses = text.split(',').map((part) => part.trim());
  for (const status of statuses) {
    if (!isOrderStatus(status)) throw new ApiError('bad_request', `status "${status}" is not one of ${ORDER_STATUSES.join(', ')}`);
  }
  return [...new Set(statuses as OrderStatus[])];
}

/** GET /api/v1/partner/orders (API key, docs/contract.md §7.2): the caller's orders, filtered, by keyset pages. */
export function registerListOrders(app: App, { partnerAuth, database, clock, config, linkBase, reads }: Services): void {
  if (config.secretsKey === undefined) throw new Error('SECRETS_KEY must be resolved before the routes are registered');
  const list = new OrderList(database.db, clock, config.secretsKey, reads);
  app.get(
    '/api/v1/partner/orders',
    {
      preValidation: partnerAuth.required,
      schema: {
        tags: ['partner'],
        summary: 'List and search orders',
        operationId: 'listOrders',
        description:
          'v1.1. The calling partner\'s orders, newest first, in pages: pass next_cursor as cursor for the next one. ' +
          'Pages stay stable while new orders arrive. A cursor that was altered or given to another key is 400.',
        security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
        querystring: Query,
        response: { 200: OrderPage, ...errorResponses(400, 401, 403, 429, 500) },
      },
    },
    async (request, reply) => {
      const query = request.query;
      // List rows: PostgreSQL wrote the Orders' bytes but for the fields that read the clock and the link base.
      const page = await list.listWire(partnerAccess(request), {
        statuses: query.status === undefined ? undefined : parseStatuses(query.status),
        coinFrom: query.coin_from,
        coinTo: query.coin_to,
        createdAfter: query.created_after === undefined ? undefined : timeFilter('created_after', query.created_after),
        createdBefore: query.created_before === undefined ? undefined : timeFilter('created_before', query.created_before),
        search: query.search,
        sandbox: query.sandbox,
        limit: query.limit ?? ORDER_PAGE_DEFAULT,
        cursor: query.cursor,
      });
      const now = clock.now();
      const orders = page.orders.map((order) => partnerOrderListJson(order, now, linkBase)).join(',');
      const next = page.nextCursor === null ? 'null' : writeString(page.nextCursor);
      return sendJsonText(reply, `{"orders":[${orders}],"next_cursor":${next}}`);
    },
  );
}
