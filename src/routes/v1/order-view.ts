import { Type } from '@sinclair/typebox';
import type { PartnerOrderRow } from '../../db/repositories/orders-repository.js';
import { ORDER_STATUSES } from '../../domain/order-status.js';
import { DecimalText } from '../../json.js';

/** The Order object of spec 2.3. */
export const OrderSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'order identifier' }),
    short_id: Type.String({ description: 'prefix, hyphen, six of A-Z0-9; lookups are case-insensitive' }),
    status: Type.Union(ORDER_STATUSES.map((status) => Type.Literal(status))),
    created_at: Type.String({ format: 'date-time' }),
    expires_at: Type.String({ format: 'date-time', description: '30 minutes after creation' }),
    coin_from: Type.String(),
    network_from: Type.String(),
    coin_to: Type.String(),
    network_to: Type.String(),
    amount_from_expected: Type.Number({ description: 'amount the user is expected to send' }),
    amount_to_expected: Type.Number({ description: 'amount the recipient is expected to receive' }),
    rate_type: Type.Union([Type.Literal('float'), Type.Literal('fixed')]),
    rate_quoted: Type.Number({ description: 'coin_to per 1 coin_from quoted at creation, net of fees' }),
    deposit_address: Type.String(),
    deposit_address_tag: Type.Union([Type.String(), Type.Null()], { description: 'memo or tag, null when none' }),
    recipient_address: Type.String(),
    deposit_txid: Type.Union([Type.String(), Type.Null()]),
    deposit_confirmations: Type.Union([Type.Integer(), Type.Null()]),
    deposit_confirmations_required: Type.Integer(),
    payout_txid: Type.Union([Type.String(), Type.Null()]),
    amount_from_received: Type.Union([Type.Number(), Type.Null()], {
      description: 'extension: what the deposit actually brought; null until a deposit is detected',
    }),
    refund_txid: Type.Union([Type.String(), Type.Null()], { description: 'extension: refund transaction hash' }),
    status_reason: Type.Union([Type.String(), Type.Null()], {
      description:
        'extension: why the order went to refunding or failed (amount_below_min, amount_above_max, ' +
        'fixed_rate_mismatch, late_deposit, exchange_failed, payout_failed, operator)',
    }),
  },
  { $id: 'Order', additionalProperties: false },
);

/**
 * An order as the partner sees it. An order past its deposit window that is still waiting
 * reads as expired before the sweep has moved it (DESIGN §4). Amounts and rate stay the NUMERIC
 * text the database returned (DecimalText): toJson writes them as exact numbers.
 */
export function orderView(order: PartnerOrderRow, now: Date): Record<string, unknown> {
  const status = order.status === 'waiting_deposit' && order.expires_at <= now ? 'expired' : order.status;
  return {
    id: order.id,
    short_id: order.short_id,
    status,
    created_at: order.created_at.toISOString(),
    expires_at: order.expires_at.toISOString(),
    coin_from: order.coin_from,
    network_from: order.network_from,
    coin_to: order.coin_to,
    network_to: order.network_to,
    amount_from_expected: new DecimalText(order.amount_from_expected),
    amount_to_expected: new DecimalText(order.amount_to_expected),
    rate_type: order.rate_type,
    rate_quoted: new DecimalText(order.rate_quoted),
    deposit_address: order.deposit_address,
    deposit_address_tag: order.deposit_address_tag,
    recipient_address: order.recipient_address,
    deposit_txid: order.deposit_txid,
    deposit_confirmations: order.deposit_confirmations,
    deposit_confirmations_required: order.deposit_confirmations_required,
    payout_txid: order.payout_txid,
    amount_from_received: order.amount_from_received === null ? null : new DecimalText(order.amount_from_received),
    refund_txid: order.refund_txid,
    status_reason: order.status_reason,
  };
}
