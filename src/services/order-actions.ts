import type { Kysely } from 'kysely';
import { findOrder, type MoveActor } from '../db/repositories/orders-repository.js';
import { findPartner } from '../db/repositories/partners-repository.js';
import { makeStepDueNow } from '../db/repositories/order-queue-repository.js';
import type { Clock } from '../clock.js';
import type { Database } from '../db/schema/index.js';
import type { OrderRow } from '../db/schema/orders.js';
import { ACTION_EVENTS, type OrderAction } from '../domain/order-lifecycle.js';
import { ApiError } from '../errors.js';
import type { CurrencyCatalog } from './currency-catalog.js';
import type { OrderLifecycle } from './order-lifecycle.js';
import { checkRefundAddress } from './refund-address.js';

/** An action as asked for (docs/contract.md §7.5); only set_refund_address carries anything. */
export type ActionRequest =
  | { action: 'cancel' | 'continue' | 'refund' }
  | { action: 'set_refund_address'; refundAddress: string; refundAddressTag?: string | undefined };

/**
 * Who asks: the order's partner (the key, or the cabinet person: docs/contract.md §10.2), or the operator
 * (on any order). Stored on the order_events row (actorColumns).
 */
export type ActionActor = Exclude<MoveActor, 'system'>;

/**
 * The order actions of docs/contract.md §7.5, for the partner API and the operator API alike. Each is one
 * event of the lifecycle table applied by OrderLifecycle (the only writer of status): one
 * transaction with its order_events row, version-checked, so of two actions racing on one order
 * the table decides the second against what the first left (409 when it is no longer offered).
 * What `actions` lists is exactly what succeeds here.
 */
export class OrderActions {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly lifecycle: OrderLifecycle,
    private readonly catalog: CurrencyCatalog,
    private readonly clock: Clock,
  ) {}

  /**
   * The operator continues an order stuck in exchanging or sending (no partner action: the
   * order's status does not change, only when its step runs): the exchange or payout step is
   * due at the worker's next pass, with a fresh retry budget, as a new step starts. 404 for no
   * such order; 409 in another status, or while a worker holds the order (it is on it now).
   */
  async resume(orderId: string): Promise<OrderRow> {
    const now = this.clock.now();
    const resumed = await makeStepDueNow(this.db, orderId, now);
    if (resumed !== undefined) return resumed;
    const order = await findOrder(this.db, orderId);
    if (order === undefined) throw new ApiError('not_found', 'order not found');
    if (order.status !== 'exchanging' && order.status !== 'sending') {
      throw new ApiError('conflict', `continuing is for an order stuck in exchanging or sending; this one is ${order.status}`);
    }
    throw new ApiError('conflict', 'a worker is running this order\'s step now: look again in a minute');
  }

  /**
   * Applies the action to the order (which the caller has already found, and for a partner,
   * found among its own). 400 for a refund address its network refuses; 404 for a vanished
   * order; 409 when the table does not allow the move now, with the table's reason.
   */
  async perform(order: Pick<OrderRow, 'id'>, request: ActionRequest, actor: ActionActor): Promise<OrderRow> {
    const event = ACTION_EVENTS[request.action];
    const result =
      request.action === 'set_refund_address'
        ? await this.lifecycle.apply(order.id, event, {
            changes: await this.refundAddress(order.id, request.refundAddress, request.refundAddressTag),
            data: { refund_address: request.refundAddress, refund_address_tag: request.refundAddressTag ?? null },
            actor,
          })
        : request.action === 'continue'
          ? await this.lifecycle.apply(order.id, event, { changes: { markup_bps: await this.markupNow(order.id) }, actor })
          : await this.lifecycle.apply(order.id, event, { ...(request.action === 'cancel' ? { reason: 'cancelled' } : {}), actor });
    if (result.ok) return result.order;
    if (result.reason === 'order not found') throw new ApiError('not_found', 'order not found');
    throw new ApiError('conflict', `${actionName(request.action)} is not possible now: ${result.reason}`);
  }

  /**
   * The markup a continued order is priced with again (docs/contract.md §10.1): `continue` re-prices the
   * order at the float rate, as a new order would be, so with its partner's markup now; stored
   * with the move, the exchange applies it and partner_fee comes from it, whatever the markup is
   * by the time the exchange runs.
   */
  private async markupNow(orderId: string): Promise<number | undefined> {
    const order = await findOrder(this.db, orderId);
    if (order === undefined) return undefined;
    const partner = await findPartner(this.db, order.partner_id);
    return partner?.markup_bps ?? order.markup_bps;
  }

  /** The refund address checked as order creation checks it, with its tag where the deposit chain routes by memo. */
  private async refundAddress(
    orderId: string,
    address: string,
    tag: string | undefined,
  ): Promise<{ refund_address: string; refund_address_tag: string | null }> {
    const order = await findOrder(this.db, orderId);
    if (order === undefined) throw new ApiError('not_found', 'order not found');
    const from = this.catalog.byId(order.currency_from_id);
    if (from === undefined) throw new Error(`currency ${order.currency_from_id} of an order is not in the catalog`);
    checkRefundAddress(from, address, tag);
    return { refund_address: address, refund_address_tag: tag ?? null };
  }
}

function actionName(action: OrderAction): string {
  return action === 'set_refund_address' ? 'setting the refund address' : action;
}
