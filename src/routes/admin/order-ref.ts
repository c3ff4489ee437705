import { Type } from '@sinclair/typebox';
import type { preValidationAsyncHookHandler } from 'fastify';
import { UUID_PATTERN } from '../../domain/short-id.js';
import { ApiError } from '../../errors.js';
import type { OrderLookup } from '../../services/order-lookup.js';

/** `:id` of the operator's order routes: the UUID, or the short id in any case, with or without its prefix. */
export const OrderRefParams = Type.Object({
  id: Type.String({
    pattern: '^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[A-Za-z0-9]{1,8}-[A-Za-z0-9]{6}|[A-Za-z0-9]{6})$',
    description: 'the order id (UUID), or its short id (`EX-7K2M9Q`, any case, with or without the prefix)',
  }),
});

/**
 * Operators read short ids off a partner's ticket (`orders show EX-…` failed): on the
 * operator routes with an order `:id`, a short id is looked up before validation and replaced by
 * the order's UUID, so every handler (and the audit log) sees the UUID. A short id of no order is
 * 404. Without a prefix the current SHORT_ID_PREFIX is tried first, then any earlier prefix.
 */
export function resolveOrderRefs(orders: OrderLookup): preValidationAsyncHookHandler {
  return async (request) => {
    if (!/\/orders\/:id(\/|$)/.test(request.routeOptions.url ?? '')) return;
    const params = request.params as { id?: string };
    const ref = params.id;
    if (ref === undefined || UUID_PATTERN.test(ref)) return;
    const found = await orders.resolveShortId(ref);
    if (found === null) return; // not an order reference: validation answers 400
    if (found === undefined) throw new ApiError('not_found', 'order not found');
    params.id = found;
  };
}
