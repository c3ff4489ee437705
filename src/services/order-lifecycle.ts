import type { Kysely, Transaction, Updateable } from 'kysely';
import { Counter } from 'prom-client';
import type { Clock } from '../clock.js';
import { findOrder, insertOrderEvent } from '../db/repositories/orders-repository.js';
import type { Database } from '../db/schema/index.js';
import type { OrderRow, OrderTable } from '../db/schema/orders.js';
import { transition, type LifecycleEvent, type StatusReason } from '../domain/order-lifecycle.js';
import type { Metrics } from '../metrics.js';

/** A payout or refund to record in the same transaction as the move that requires it. */
export interface OutboxRequest {
  kind: 'payout' | 'refund';
  chain: string;
  address: string;
  tag: string | null;
  /** Decimal string in the coin being sent. */
  amount: string;
}

export interface ApplyOptions {
  /** Field changes that go with the move (txids, amounts, confirmations). */
  changes?: Updateable<OrderTable>;
  /** Why (stored as status_reason when the move ends in refunding or failed). */
  reason?: StatusReason;
  data?: Record<string, unknown>;
  outbox?: OutboxRequest;
  /** More writes that must commit or roll back with the move (e.g. the payout row's status). */
  inTransaction?: (tx: Transaction<Database>) => Promise<unknown>;
}

export type ApplyResult = { ok: true; order: OrderRow } | { ok: false; reason: string };

const MAX_VERSION_RETRIES = 3;

/**
 * Applies one state-machine move to one order: a single transaction that updates the order
 * under an optimistic version check, appends the order_events row and, when the move requires
 * it, records the payout or refund request. A move the table refuses changes nothing.
 */
export class OrderLifecycle {
  readonly transitions: Counter<'from' | 'to'>;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    metrics: Metrics,
    /** Chain of a currency row id (the catalog knows). */
    private readonly chainOf: (currencyId: string) => string,
  ) {
    this.transitions = new Counter({
      name: 'order_transitions_total',
      help: 'Order status transitions applied, by from and to status.',
      labelNames: ['from', 'to'],
      registers: [metrics.registry],
    });
  }

  async apply(orderId: string, event: LifecycleEvent, options: ApplyOptions = {}): Promise<ApplyResult> {
    for (let attempt = 0; attempt < MAX_VERSION_RETRIES; attempt++) {
      const order = await findOrder(this.db, orderId);
      if (order === undefined) return { ok: false, reason: 'order not found' };
      const now = this.clock.now();
      const move = transition(order.status, event, {
        pastExpiry: order.expires_at <= now,
        hasRefundAddress: order.refund_address !== null,
      });
      if (!move.ok) return move;
      const updated = await this.db.transaction().execute(async (tx) => {
        const row = await tx
          .updateTable('orders')
          .set({
            ...options.changes,
            status: move.to,
            ...(options.reason !== undefined && (move.to === 'refunding' || move.to === 'failed')
              ? { status_reason: options.reason }
              : {}),
            version: order.version + 1,
            // A new step starts with a clean retry budget and no lease.
            ...(move.to !== order.status ? { attempts: 0, next_attempt_at: null, locked_until: null } : {}),
            updated_at: now,
          })
          .where('id', '=', order.id)
          .where('version', '=', order.version)
          .returningAll()
          .executeTakeFirst();
        if (row === undefined) return undefined;
        await insertOrderEvent(tx, {
          order_id: order.id,
          from_status: order.status,
          to_status: move.to,
          reason: options.reason ?? event,
          order_version: order.version + 1,
          data: options.data ?? null,
          created_at: now,
        });
        const outbox = outboxFor(move.to, options.outbox) ?? refundRequest(row, move.to, this.chainOf);
        if (outbox !== undefined) {
          await tx
            .insertInto('payouts')
            .values({ order_id: order.id, ...outbox, created_at: now })
            .onConflict((conflict) => conflict.columns(['order_id', 'kind']).doNothing())
            .execute();
        }
        await options.inTransaction?.(tx);
        return row;
      });
      if (updated !== undefined) {
        if (order.status !== updated.status) this.transitions.inc({ from: order.status, to: updated.status });
        return { ok: true, order: updated };
      }
      // Someone else moved the order first: re-read and decide again.
    }
    return { ok: false, reason: 'the order kept changing; try again' };
  }
}

/** A payout request is recorded only by the move into sending. */
function outboxFor(to: OrderRow['status'], request: OutboxRequest | undefined): OutboxRequest | undefined {
  return request?.kind === 'payout' && to === 'sending' ? request : undefined;
}

/** Entering refunding always requests the refund of what was received, to the refund address. */
function refundRequest(
  order: OrderRow,
  to: OrderRow['status'],
  chainOf: (currencyId: string) => string,
): OutboxRequest | undefined {
  if (to !== 'refunding' || order.refund_address === null || order.amount_from_received === null) return undefined;
  return {
    kind: 'refund',
    chain: chainOf(order.currency_from_id),
    address: order.refund_address,
    tag: null,
    amount: order.amount_from_received,
  };
}
