import type { Db } from '../schema/index.js';
import type { OrderRow } from '../schema/orders.js';
import { PUBLIC_ORDER_COLUMNS, type PublicOrderRow } from '../../views/public-order-view.js';
import type { PartnerOrderWireRow } from '../../views/partner-order-view.js';
import { PARTNER_ORDER_WIRE_SELECTIONS, type OrderOwner } from './orders-repository.js';

/**
 * The reads of the status stream and the batch status read (docs/contract.md §10.11): many of one
 * partner's orders by id in one query, of the key's mode and (a client key) made by that key.
 * An id that is not such an order is simply not found.
 */

/** What POST /partner/orders/status tells of an order. */
export type OrderVersionRow = Pick<OrderRow, 'id' | 'status' | 'expires_at' | 'version' | 'updated_at'>;


export async function orderVersions(db: Db, owner: OrderOwner, ids: readonly string[]): Promise<OrderVersionRow[]> {
  if (ids.length === 0) return [];
  let query = db
    .selectFrom('orders')
    .select(['id', 'status', 'expires_at', 'version', 'updated_at'])
    .where('partner_id', '=', owner.partnerId)
    .where('id', 'in', ids);
  if (owner.sandbox !== undefined) query = query.where('sandbox', '=', owner.sandbox);
  if (owner.createdBy !== undefined) query = query.where('created_by_key_id', '=', owner.createdBy);
  return query.execute();
}

/** The orders as GET /partner/orders/{id} writes them (the wire row), for the stream's first events. */
export async function partnerOrdersWire(db: Db, owner: OrderOwner, ids: readonly string[]): Promise<PartnerOrderWireRow[]> {
  if (ids.length === 0) return [];
  let query = db.selectFrom('orders').select(PARTNER_ORDER_WIRE_SELECTIONS).where('partner_id', '=', owner.partnerId).where('id', 'in', ids);
  if (owner.sandbox !== undefined) query = query.where('sandbox', '=', owner.sandbox);
  if (owner.createdBy !== undefined) query = query.where('created_by_key_id', '=', owner.createdBy);
  return (await query.execute()) as unknown as PartnerOrderWireRow[];
}

/** The order behind a status link as its public view reads it, with its id and version (the stream's event ids). */
export type PublicStreamRow = PublicOrderRow & Pick<OrderRow, 'id' | 'version'>;

export async function publicOrderForStream(db: Db, token: string): Promise<PublicStreamRow | undefined> {
  return db.selectFrom('orders').select([...PUBLIC_ORDER_COLUMNS, 'id', 'version']).where('status_token', '=', token).executeTakeFirst();
}
