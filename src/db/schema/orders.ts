import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';
import type { OrderStatus } from '../../domain/order-status.js';
import type { Numeric, Timestamp } from './currencies.js';

/** An exchange order. Amounts in the coins' own units; rates in coin_to per 1 coin_from. */
export interface OrderTable {
  id: string;
  /** Stored upper case: `EX-7K2M9Q`. */
  short_id: string;
  partner_id: string;
  status: OrderStatus;
  /** Why an order went to refunding or failed. */
  status_reason: string | null;
  /** Optimistic concurrency: every transition bumps it. */
  version: number;
  currency_from_id: string;
  currency_to_id: string;
  coin_from: string;
  network_from: string;
  coin_to: string;
  network_to: string;
  rate_type: 'float' | 'fixed';
  amount_from_expected: Numeric;
  amount_to_expected: Numeric;
  /** The published rate at creation. */
  rate_quoted: Numeric;
  /** The exact net rate; a fixed order is exchanged at it. */
  exact_rate: Numeric;
  quote_id: string | null;
  /**
   * The partner's markup this order is priced with, in bps (docs/contract.md §10.1, migration 0033): a fixed
   * order's is its quote's, a float order's the one at creation (applied again at the exchange),
   * a continued order's the one of that re-pricing. partner_fee is computed from it. Internal (not
   * in the Order). Left out of an insert, the partner's markup at that moment (a trigger).
   */
  markup_bps: ColumnType<number, number | undefined, number>;
  deposit_address: string;
  deposit_address_tag: string | null;
  /** The deposit's payment URI (BIP-21, EIP-681, ...), fixed at creation; null where the chain has none. */
  deposit_uri: string | null;
  recipient_address: string;
  recipient_address_tag: string | null;
  refund_address: string | null;
  /** The refund address's memo or tag; required for a refund where the deposit chain routes by memo. */
  refund_address_tag: Generated<string | null>;
  /**
   * A refund held for the partner's choice (docs/contract.md §7.5) until this moment: continue or refund
   * until then, after it the refund proceeds. Null when no refund is held; set only in refunding.
   */
  refund_hold_until: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** When the partner chose to continue a held order: its exchange is then priced at the float rate. */
  continued_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  deposit_txid: string | null;
  deposit_confirmations: number | null;
  deposit_confirmations_required: number;
  amount_from_received: Numeric | null;
  payout_txid: string | null;
  refund_txid: string | null;
  /** What the exchange filled, in coin_to: what the payout sends (the Order shows it once sent). */
  amount_to_final: Numeric | null;
  /**
   * amount_to_final / amount_from_received rounded down to coin_to's decimals, stored with it at
   * the exchange (docs/contract.md §10.1, for display; the Order shows it once the payout is sent).
   */
  rate_final: ColumnType<string | null, string | null | undefined, string | null>;
  /** Exactly what the refund sent, in coin_from: the refund row's amount, stored when it is sent. */
  amount_refunded: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * The payout network fee in coin_to the pricing deducted from amount_to, its USD value (8 places,
   * rounded down) and the ETA in seconds, stored at creation (docs/contract.md §10.6, migration 0046). Null
   * on orders made before v1.2; set together.
   */
  network_fee: ColumnType<string | null, string | null | undefined, string | null>;
  network_fee_usd: ColumnType<string | null, string | null | undefined, string | null>;
  eta_seconds: ColumnType<number | null, number | null | undefined, number | null>;
  /**
   * The partner's markup share (docs/contract.md §7.8), in coin_to, recorded at the exchange moment with
   * its USD value and the exchange's USD volume at that moment's prices (USD to 8 places,
   * rounded down). All four null before the exchange, set together once.
   */
  partner_fee: ColumnType<string | null, string | null | undefined, string | null>;
  partner_fee_usd: ColumnType<string | null, string | null | undefined, string | null>;
  volume_usd: ColumnType<string | null, string | null | undefined, string | null>;
  exchanged_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** Failed attempts of the current step (exchange, payout or refund). */
  attempts: Generated<number>;
  /** When the worker may try the current step again (backoff). */
  next_attempt_at: Timestamp | null;
  /** A worker's lease on the order; an expired lease means the worker died. */
  locked_until: Timestamp | null;
  /**
   * Made with a sandbox key (docs/contract.md §7.6): runs on the simulator only, whatever chains are
   * configured, and is listed and counted apart. Set at creation, never changed. Default false.
   */
  sandbox: Generated<boolean>;
  /**
   * The partner's own reference (docs/contract.md §10.8), at most 64 characters, unique per partner and
   * mode; null when none was sent.
   */
  external_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The partner's string map (at most 10 keys of ≤ 40 characters, values ≤ 64); `{}` when none. */
  metadata: ColumnType<OrderMetadata, OrderMetadata | string | undefined, OrderMetadata | string>;
  /**
   * The end user's address the partner sent in X-End-User-IP (PostgreSQL `inet`, read as its
   * text: `203.0.113.7`, `2001:db8::1`); operator only, never in the Order. Null when not sent.
   */
  end_user_ip: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * The key that created the order (migration 0049): a client key reads only the orders it
   * created (docs/contract.md §10.9). Null for orders made before it. Internal (not in the Order).
   */
  created_by_key_id: Generated<string | null>;
  /**
   * The unguessable part of the order's public status link (`/status/{token}`, docs/contract.md §10.10,
   * migration 0050): 32 base64url characters from the service (192 random bits), or the column's
   * default of 64 hex digits. The Order shows it only inside `status_url`.
   */
  status_token: Generated<string>;
  created_at: Timestamp;
  expires_at: Timestamp;
  updated_at: Timestamp;
}

/** An order's metadata: string keys to string values (docs/contract.md §10.8). */
export type OrderMetadata = Readonly<Record<string, string>>;

export type OrderRow = Selectable<OrderTable>;
export type NewOrder = Insertable<OrderTable>;

export type EventActor = 'partner' | 'operator' | 'system';

/** Append-only audit trail: one row per transition (the first is creation). */
export interface OrderEventTable {
  id: Generated<string>;
  order_id: string;
  from_status: OrderStatus | null;
  to_status: OrderStatus;
  reason: string | null;
  data: unknown;
  /** The order's version after this event (0 = creation): the trail's order. */
  order_version: number | null;
  /** Who made the move: the partner (creation, actions), the operator, or the system (worker, chains). */
  actor: Generated<EventActor>;
  /** A partner's move (docs/contract.md §10.2): the key that made it; null for the operator, the system and the cabinet. */
  actor_key_id: Generated<string | null>;
  /** A partner's move made in the cabinet: the person (cabinet_users.id); null otherwise. */
  actor_user_id: Generated<string | null>;
  /** The W3C traceparent of the span that wrote it, when tracing is on: the next step continues that trace. */
  trace_parent: Generated<string | null>;
  created_at: Timestamp;
}

export type OrderEventRow = Selectable<OrderEventTable>;
