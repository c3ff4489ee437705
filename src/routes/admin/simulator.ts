import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { Decimal } from '../../domain/money.js';
import type { App, Services } from '../../app-types.js';
import { injectFault } from '../../chains/simulator/simulator-faults.js';
import { findOrder } from '../../db/repositories/orders-repository.js';
import { DECIMAL_PATTERN, isStorableDecimal, parseDecimalInput } from '../../domain/money.js';
import { ApiError } from '../../errors.js';
import { toJson } from '../../json.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { errorResponses } from '../schemas.js';
import { adminSecurity } from './admin-schemas.js';

const OrderParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
const SimulatedDeposit = Type.Object({
  order_id: Type.String(),
  txid: Type.String(),
  amount: Type.Number(),
  confirmations: Type.Integer(),
  dropped: Type.Boolean(),
});
const tags = ['simulator'];

/**
 * The simulated chain and exchange, driven by the operator (or a test). Deposits put here are
 * reported by the simulated chain watcher on the worker's next pass, like a node would.
 */
export function registerSimulator(app: App, { database, clock }: Services): void {
  const db = database.db;
  const depositView = async (orderId: string, reply: Parameters<typeof sendJsonText>[0]) => {
    const row = await db.selectFrom('simulated_deposits').selectAll().where('order_id', '=', orderId).executeTakeFirst();
    if (row === undefined) throw new ApiError('not_found', 'no simulated deposit for this order');
    return sendJsonText(
      reply,
      toJson({ order_id: row.order_id, txid: row.txid, amount: new Decimal(row.amount), confirmations: row.confirmations, dropped: row.dropped }),
    );
  };

  app.post(
    '/admin/v1/simulator/orders/:id/deposit',
    {
      schema: {
        tags,
        summary: "Send a simulated deposit to an order's address",
        security: adminSecurity,
        params: OrderParams,
        body: Type.Optional(
          Type.Object(
            {
              amount: Type.Optional(Type.Union([Type.String({ pattern: DECIMAL_PATTERN }), Type.Number({ exclusiveMinimum: 0 })])),
              txid: Type.Optional(Type.String({ pattern: '^[0-9a-fA-Fx]{8,100}$' })),
            },
            { additionalProperties: false },
          ),
        ),
        response: { 200: SimulatedDeposit, ...errorResponses(400, 401, 404, 409, 500) },
      },
    },
    async (request, reply) => {
      const order = await findOrder(db, request.params.id);
      if (order === undefined) throw new ApiError('not_found', 'order not found');
      const rawAmount = request.body?.amount;
      const amount = rawAmount === undefined ? new Decimal(order.amount_from_expected) : parseDecimalInput(rawAmount);
      if (amount === undefined || amount.lte(0)) throw new ApiError('bad_request', 'amount must be a positive decimal');
      if (!isStorableDecimal(amount)) throw new ApiError('bad_request', 'amount must be below 1e20 with at most 18 decimals');
      const now = clock.now();
      const inserted = await db
        .insertInto('simulated_deposits')
        .values({
          order_id: order.id,
          txid: request.body?.txid ?? randomBytes(32).toString('hex'),
          amount: amount.toFixed(),
          confirmations: 0,
          dropped: false,
          created_at: now,
          updated_at: now,
        })
        .onConflict((conflict) => conflict.column('order_id').doNothing())
        .returning('order_id')
        .executeTakeFirst();
      if (inserted === undefined) throw new ApiError('conflict', 'this order already has a simulated deposit');
      return depositView(order.id, reply);
    },
  );

  app.post(
    '/admin/v1/simulator/orders/:id/confirmations',
    {
      schema: {
        tags,
        summary: 'Set the confirmations of the simulated deposit',
        security: adminSecurity,
        params: OrderParams,
        body: Type.Object({ count: Type.Integer({ minimum: 0, maximum: 100000 }) }, { additionalProperties: false }),
        response: { 200: SimulatedDeposit, ...errorResponses(400, 401, 404, 500) },
      },
    },
    async (request, reply) => {
      await db
        .updateTable('simulated_deposits')
        .set({ confirmations: request.body.count, updated_at: clock.now() })
        .where('order_id', '=', request.params.id)
        .execute();
      return depositView(request.params.id, reply);
    },
  );

  app.post(
    '/admin/v1/simulator/orders/:id/drop-deposit',
    {
      schema: {
        tags,
        summary: 'Remove the simulated deposit from the chain (a reorg)',
        security: adminSecurity,
        params: OrderParams,
        response: { 200: SimulatedDeposit, ...errorResponses(400, 401, 404, 500) },
      },
    },
    async (request, reply) => {
      await db
        .updateTable('simulated_deposits')
        .set({ dropped: true, updated_at: clock.now() })
        .where('order_id', '=', request.params.id)
        .execute();
      return depositView(request.params.id, reply);
    },
  );

  app.post(
    '/admin/v1/simulator/faults',
    {
      schema: {
        tags,
        summary: 'Make the next exchange, payout or refund attempts fail',
        security: adminSecurity,
        body: Type.Object(
          {
            step: Type.Union([Type.Literal('exchange'), Type.Literal('payout'), Type.Literal('refund')]),
            count: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, default: 1 })),
            permanent: Type.Optional(Type.Boolean({ default: false, description: 'retrying cannot help' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ step: Type.String(), count: Type.Integer(), permanent: Type.Boolean() }),
          ...errorResponses(400, 401, 500),
        },
      },
    },
    async (request) => {
      const { step, count = 1, permanent = false } = request.body;
      await injectFault(db, step, count, permanent);
      return { step, count, permanent };
    },
  );
}
