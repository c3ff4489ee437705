import { Type } from '@sinclair/typebox';
import { Decimal } from 'decimal.js';
import type { App, Services } from '../../app-types.js';
import { findOrder } from '../../db/repositories/orders-repository.js';
import type { OrderRow } from '../../db/schema/orders.js';
import { ORDER_STATUSES } from '../../domain/order-status.js';
import { ApiError } from '../../errors.js';
import { toJson } from '../../json.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { orderView } from '../v1/order-view.js';
import { errorResponses } from '../schemas.js';
import { STORABLE_TEXT_PATTERN, adminSecurity } from './admin-schemas.js';

const Status = Type.Union(ORDER_STATUSES.map((status) => Type.Literal(status)));

/** The partner's view plus what only the operator sees. */
function adminOrderView(order: OrderRow, now: Date): Record<string, unknown> {
  return {
    ...orderView(order, now),
    stored_status: order.status,
    partner_id: order.partner_id,
    recipient_address_tag: order.recipient_address_tag,
    refund_address: order.refund_address,
    amount_to_final: order.amount_to_final === null ? null : new Decimal(order.amount_to_final),
    quote_id: order.quote_id,
    attempts: order.attempts,
    next_attempt_at: order.next_attempt_at?.toISOString() ?? null,
    version: order.version,
    updated_at: order.updated_at.toISOString(),
  };
}

/**
 * A date-time query value as a Date the database can compare. The date-time format admits a
 * leap second (23:59:60), which Date cannot hold, and year 0000 (or 0001 with a positive
 * offset), which PostgreSQL refuses: both are 400 here instead of a failed query (500).
 */
function timeFilter(field: string, value: string): Date {
  const date = new Date(value);
  if (Number.isNaN(date.getTime()) || date.getUTCFullYear() < 1) {
    throw new ApiError('bad_request', `querystring/${field} is not a time that can be searched for`);
  }
  return date;
}

export function registerAdminOrders(app: App, { database, clock, lifecycle }: Services): void {
  const db = database.db;

  app.get(
    '/admin/v1/orders',
    {
      schema: {
        tags: ['admin'],
        summary: 'Orders, newest first, filtered by status, partner and creation time',
        security: adminSecurity,
        querystring: Type.Object(
          {
            status: Type.Optional(Status),
            partner_id: Type.Optional(Type.String({ format: 'uuid' })),
            created_from: Type.Optional(Type.String({ format: 'date-time' })),
            created_to: Type.Optional(Type.String({ format: 'date-time' })),
            limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
            // PostgreSQL's OFFSET is a bigint: a larger number would fail the query (a 500).
            offset: Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0 }),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Array(Type.Object({}, { additionalProperties: true })), ...errorResponses(400, 401, 500) },
      },
    },
    async (request, reply) => {
      const q = request.query;
      let query = db.selectFrom('orders').selectAll();
      if (q.status !== undefined) query = query.where('status', '=', q.status);
      if (q.partner_id !== undefined) query = query.where('partner_id', '=', q.partner_id);
      if (q.created_from !== undefined) query = query.where('created_at', '>=', timeFilter('created_from', q.created_from));
      if (q.created_to !== undefined) query = query.where('created_at', '<', timeFilter('created_to', q.created_to));
      const rows = await query.orderBy('created_at', 'desc').orderBy('id').limit(q.limit).offset(q.offset).execute();
      const now = clock.now();
      return sendJsonText(reply, toJson(rows.map((row) => adminOrderView(row, now))));
    },
  );

  app.get(
    '/admin/v1/orders/:id',
    {
      schema: {
        tags: ['admin'],
        summary: 'One order with its audit trail',
        security: adminSecurity,
        params: Type.Object({ id: Type.String({ format: 'uuid' }) }),
        response: { 200: Type.Object({}, { additionalProperties: true }), ...errorResponses(400, 401, 404, 500) },
      },
    },
    async (request, reply) => {
      const order = await findOrder(db, request.params.id);
      if (order === undefined) throw new ApiError('not_found', 'order not found');
      const events = await db
        .selectFrom('order_events')
        .select(['from_status', 'to_status', 'reason', 'data', 'created_at'])
        .where('order_id', '=', order.id)
        .orderBy('order_version')
        .orderBy('created_at')
        .execute();
      const payouts = await db
        .selectFrom('payouts')
        .select(['kind', 'address', 'tag', 'amount', 'status', 'txid', 'created_at', 'sent_at'])
        .where('order_id', '=', order.id)
        .execute();
      return sendJsonText(
        reply,
        toJson({
          ...adminOrderView(order, clock.now()),
          events: events.map((event) => ({ ...event, created_at: event.created_at.toISOString() })),
          payouts: payouts.map((payout) => ({
            ...payout,
            amount: new Decimal(payout.amount),
            created_at: payout.created_at.toISOString(),
            sent_at: payout.sent_at?.toISOString() ?? null,
          })),
        }),
      );
    },
  );

  app.post(
    '/admin/v1/orders/:id/fail',
    {
      schema: {
        tags: ['admin'],
        summary: 'Fail a non-final order by hand (the reason is recorded)',
        security: adminSecurity,
        params: Type.Object({ id: Type.String({ format: 'uuid' }) }),
        body: Type.Object(
          { reason: Type.String({ minLength: 1, maxLength: 500, pattern: STORABLE_TEXT_PATTERN }) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({}, { additionalProperties: true }), ...errorResponses(400, 401, 404, 409, 500) },
      },
    },
    async (request, reply) => {
      const result = await lifecycle.apply(request.params.id, 'operator_fail', {
        reason: 'operator',
        data: { note: request.body.reason },
      });
      if (!result.ok) {
        if (result.reason === 'order not found') throw new ApiError('not_found', 'order not found');
        throw new ApiError('conflict', result.reason);
      }
      return sendJsonText(reply, toJson(adminOrderView(result.order, clock.now())));
    },
  );
}
