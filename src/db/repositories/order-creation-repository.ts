import type { CompiledQuery } from 'kysely';
import { preparedQuery } from '../prepared-statements.js';
import { currentTraceParent } from '../../tracing/tracing.js';
import type { Db } from '../schema/index.js';
import type { NewOrder } from '../schema/orders.js';
import { PARTNER_ORDER_COLUMNS, type PartnerOrderRow } from '../../views/partner-order-view.js';

/**
 * A new order written in one statement: `create_partner_order` (migrations 0020, 0028) inserts
 * the order, binds its deposit address, appends the creation event, completes the
 * Idempotency-Key record, checks the open-order cap and records the `order.created` webhook
 * event (docs/contract.md §8) for the partner's endpoints; since 0047 it refuses a second order with one
 * external_id (docs/contract.md §10.8). Only the partner view's columns come back.
 */

/**
 * A new order. Its columns go to the function as one JSON row, and a column left out is null
 * there (not its default): the defaults of the Generated columns are filled in below.
 */
export type NewOrderRow = NewOrder & { created_at: Date; expires_at: Date; updated_at: Date; markup_bps: number; status_token: string };

/** What a column left out of NewOrder would get from its default. */
const ORDER_DEFAULTS = {
  attempts: 0,
  sandbox: false,
  next_attempt_at: null,
  locked_until: null,
  amount_to_final: null,
  external_id: null,
  metadata: {},
  end_user_ip: null,
};

/** The order's deposit: a derived or memo address to record, or a pool row claimed in this transaction. */
export type NewOrderDeposit =
  | { chain: string; strategy: 'hd' | 'memo' | 'sandbox'; derivation_index: number | null }
  | { pool_row_id: string };

/** The creation row of the audit trail, every column. */
export interface NewCreationEvent {
  id: string;
  order_id: string;
  from_status: null;
  to_status: 'waiting_deposit';
  reason: 'created';
  data: Record<string, unknown>;
  order_version: 0;
  /** Who made the move (the partner creates); ignored where the column does not exist yet. */
  actor: 'partner';
  /** The key that made the order (docs/contract.md §10.2: every partner action names its key). */
  actor_key_id: string;
  created_at: Date;
}

export interface OrderCreation {
  order: NewOrderRow;
  deposit: NewOrderDeposit;
  event: NewCreationEvent;
  idempotencyKey: string | null;
  /** The partner's cap on orders awaiting a deposit. */
  maxOpenOrders: number;
  /** The `order.created` event: its webhook-id and body (stored only if an endpoint takes it). */
  webhookEvent: { id: string; payload: string };
}

/** The function's refusal: the partner had this many other open orders (at or over its cap). */
export class OpenOrdersOverCap extends Error {
  constructor(readonly others: number) {
    super(`open orders over the cap: ${others}`);
  }
}

/**
 * The function's refusal: the order's Idempotency-Key was completed meanwhile with another order
 * (a first request that outlived its claim's lease, migration 0043); nothing is written.
 */
export class IdempotencyKeyCompleted extends Error {
  constructor(readonly orderId: string) {
    super(`the Idempotency-Key was completed with order ${orderId}`);
  }
}

/**
 * The function's refusal: the partner already has an order with this external_id in the order's
 * mode (migration 0047; also when the two creations raced); nothing is written.
 */
export class ExternalIdConflict extends Error {
  constructor(readonly orderId: string) {
    super(`external_id is already used by order ${orderId}`);
  }
}

const CREATE: CompiledQuery<PartnerOrderRow> = preparedQuery(
  'create_partner_order',
  `select ${PARTNER_ORDER_COLUMNS.map((column) => `"${column}"`).join(', ')} ` +
    'from create_partner_order($1::jsonb, $2::jsonb, $3::jsonb, $4::text, $5::integer, $6::text, $7::text)',
);

/**
 * Writes the order and its outbox rows (one statement: atomic alone, or in the caller's
 * transaction when it passes one, as a pool address claimed first needs). Throws
 * OpenOrdersOverCap when the partner is at its cap (nothing is written), IdempotencyKeyCompleted
 * when its key was completed meanwhile with another order (nothing is written), ExternalIdConflict
 * when the partner's mode already has an order with its external_id (nothing is written), or the database's
 * error (a unique violation names its constraint: orders_short_id_key, orders_quote_id_key).
 */
export async function createPartnerOrder(db: Db, creation: OrderCreation): Promise<PartnerOrderRow> {
  const deposit = 'pool_row_id' in creation.deposit ? { id: creation.deposit.pool_row_id } : creation.deposit;
  try {
    const result = await db.executeQuery<PartnerOrderRow>({
      ...CREATE,
      parameters: [
        JSON.stringify({ ...ORDER_DEFAULTS, ...creation.order }),
        JSON.stringify(deposit),
        // The request's trace context (tracing on) goes with the creation event: jsonb_populate_record fills the column.
        JSON.stringify({ ...creation.event, trace_parent: currentTraceParent() }),
        creation.idempotencyKey,
        creation.maxOpenOrders,
        creation.webhookEvent.id,
        creation.webhookEvent.payload,
      ],
    });
    const row = result.rows[0];
    if (row === undefined) throw new Error('create_partner_order returned no row');
    return row;
  } catch (error) {
    const e = error as { code?: string; message?: string; detail?: string };
    if (e.code === 'P0001' && e.message === 'open_orders_limit') throw new OpenOrdersOverCap(Number(e.detail));
    if (e.code === 'P0001' && e.message === 'idempotency_key_completed') throw new IdempotencyKeyCompleted(e.detail ?? '');
    if (e.code === 'P0001' && e.message === 'external_id_conflict') throw new ExternalIdConflict(e.detail ?? '');
    throw error;
  }
}
