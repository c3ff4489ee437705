import { randomUUID } from 'node:crypto';
import { insertWebhookEvents, type NewOrderWebhookEvent } from '../db/repositories/webhook-events-repository.js';
import type { Db } from '../db/schema/index.js';
import type { OrderRow } from '../db/schema/orders.js';
import { partnerOrderJson, type LinkBase, type PartnerOrderRow } from '../views/partner-order-view.js';
import type { OrderStatus } from '../domain/order-status.js';
import type { WebhookEventType } from '../domain/webhook-events.js';
import { writeString } from '../json.js';

/**
 * The webhook outbox (docs/contract.md §8): what an order move writes, in its own transaction, for the
 * partner's endpoints. Its two callers are the two writers of an order's status: order creation
 * (`order.created`) and OrderLifecycle (`order.status_changed`, every transition).
 */

/** An order as it is after a move, with the status it had before (null at creation). */
export interface OrderMoveRecord {
  order: PartnerOrderRow & Pick<OrderRow, 'partner_id'>;
  previousStatus: OrderStatus | null;
}

/** A new webhook-id: `msg_` and 32 hex digits (one per event, the same on every attempt). */
export function newWebhookMessageId(): string {
  return `msg_${randomUUID().replaceAll('-', '')}`;
}

/**
 * The body of an order event: `{"type", "timestamp", "data": {"order", "previous_status"}}`, the
 * Order exactly as GET /partner/orders/{id} answers it at `at` (the move's time, this version).
 */
export function orderEventBody(type: WebhookEventType, at: Date, order: PartnerOrderRow, previousStatus: OrderStatus | null, base: LinkBase): string {
  const previous = previousStatus === null ? 'null' : writeString(previousStatus);
  return `{"type":${writeString(type)},"timestamp":${writeString(at.toISOString())},"data":{"order":${partnerOrderJson(order, at, base)},"previous_status":${previous}}}`;
}

/** The body of a ping: no data beyond its type and time. */
export function pingBody(at: Date): string {
  return `{"type":"ping","timestamp":${writeString(at.toISOString())},"data":{}}`;
}

/**
 * Records the events of order moves made in `tx` at `now` (created when previousStatus is null;
 * the Orders' links on `base`),
 * one statement whatever their number: each becomes a pending delivery per endpoint that takes it
 * (of the order's mode: docs/contract.md §10.2).
 */
export async function recordOrderEvents(tx: Db, moves: readonly OrderMoveRecord[], now: Date, base: LinkBase): Promise<void> {
  const events: NewOrderWebhookEvent[] = moves.map(({ order, previousStatus }) => {
    const type: WebhookEventType = previousStatus === null ? 'order.created' : 'order.status_changed';
    return {
      id: newWebhookMessageId(),
      partner_id: order.partner_id,
      type,
      order_id: order.id,
      payload: orderEventBody(type, now, order, previousStatus, base),
      sandbox: order.sandbox,
    };
  });
  await insertWebhookEvents(tx, events, now);
}
