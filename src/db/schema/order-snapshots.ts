import type { Selectable } from 'kysely';
import type { OrderStatus } from '../../domain/order-status.js';
import type { Timestamp } from './currencies.js';

/**
 * An order as it was after one move (migration 0055): what the status stream resends after a
 * reconnect (docs/contract.md §10.11). Written in the move's transaction by OrderLifecycle.
 */
export interface OrderSnapshotTable {
  order_id: string;
  /** The order's version after the move (1 and up). */
  version: number;
  /** The stored status after the move (a final one ends the stream). */
  status: OrderStatus;
  /** The Order exactly as GET /partner/orders/{id} answered it at the move's time. */
  order_json: string;
  /** The move's time. */
  created_at: Timestamp;
}

export type OrderSnapshotRow = Selectable<OrderSnapshotTable>;
