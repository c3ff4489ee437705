import { Type } from '@sinclair/typebox';
import { PARTNER_ORDER_FIELDS, partnerOrderJson, type LinkBase, type PartnerOrderRow } from '../../views/partner-order-view.js';

/**
 * The partner's order view as the routes answer it, all derived from its one definition
 * (views/partner-order-view.ts), which also gives the columns GET selects.
 */

/** The Order object of docs/contract.md §2.3: the response schema of POST and GET /partner/orders. */
export const OrderSchema = Type.Object(
  Object.fromEntries(PARTNER_ORDER_FIELDS.map(([name, field]) => [name, field.schema])),
  { $id: 'Order', additionalProperties: false },
);

/**
 * An order as the partner sees it, as a value for toJson (the operator's view adds to it).
 * Amounts and rate stay the NUMERIC text the database returned (DecimalText): toJson writes
 * them as exact numbers.
 */
export function orderView(order: PartnerOrderRow, now: Date, base: LinkBase): Record<string, unknown> {
  const view: Record<string, unknown> = {};
  for (const [name, field] of PARTNER_ORDER_FIELDS) view[name] = field.value(order, now, base);
  return view;
}

/**
 * The JSON text of orderView(order, now, base), byte for byte what toJson writes for it, without
 * building the object (defined beside the view, where webhook bodies take it too).
 */
export const orderJson = partnerOrderJson;
