import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { SimulatedDepositRow } from '../../db/repositories/simulator-repository.js';
import type { OrderRow } from '../../db/schema/orders.js';
import type { PartnerRow } from '../../db/schema/partners.js';
import { Decimal } from '../../domain/money.js';
import { CORS_ORIGINS_MAX } from '../../domain/web-origin.js';
import { ApiError } from '../../errors.js';
import { toJson } from '../../json.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { orderView } from '../v1/order-view.js';
import type { LinkBase } from '../../views/partner-order-view.js';

export const PartnerStatus = Type.Union([Type.Literal('active'), Type.Literal('suspended')]);
export const MarkupBps = Type.Integer({ minimum: 0, maximum: 1000, description: 'markup in basis points' });
export const RateLimit = Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'requests per minute per key' });
export const MaxOpenOrders = Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000 }), Type.Null()], {
  description: 'orders awaiting a deposit the partner may have at once; null: the server default (MAX_OPEN_ORDERS_PER_PARTNER)',
});

/** docs/contract.md §10.9: a key's scope. */
export const KeyScopeSchema = Type.Union([Type.Literal('full'), Type.Literal('client')], {
  description:
    'v1.2: `full` (default), or `client` (pk_client_…): a key safe to ship inside an app, which may read currencies and rates, ' +
    'validate addresses, create orders and read the orders it created (and their QR codes); anything else is 403 `scope`',
});

/** docs/contract.md §10.9: the web origins whose pages may call the client-key routes. */
export const CorsOrigins = Type.Array(
  Type.String({ minLength: 1, maxLength: 200, description: 'an origin as a browser sends it: https://wallet.example (scheme, host, optional port)' }),
  {
    maxItems: CORS_ORIGINS_MAX,
    description: 'v1.2: web origins whose pages may call the client-key routes (CORS); empty: none',
  },
);

export const Partner = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    status: PartnerStatus,
    markup_bps: Type.Integer(),
    rate_limit_per_minute: Type.Integer(),
    max_open_orders: Type.Union([Type.Integer(), Type.Null()], { description: 'null: the server default' }),
    cors_origins: CorsOrigins,
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'AdminPartner', additionalProperties: false },
);

export function partnerView(row: PartnerRow) {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    markup_bps: row.markup_bps,
    rate_limit_per_minute: row.rate_limit_per_minute,
    max_open_orders: row.max_open_orders,
    cors_origins: row.cors_origins,
    created_at: row.created_at.toISOString(),
  };
}

export const KeyListing = Type.Object(
  {
    key_id: Type.String(),
    sandbox: Type.Boolean({ description: 'a sandbox key (pk_test_…): its orders run on the simulator only' }),
    scope: KeyScopeSchema,
    created_at: Type.String({ format: 'date-time' }),
    revoked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { $id: 'AdminKey', additionalProperties: false },
);

/** A person of a partner's cabinet, as the operator sees them. */
export const CabinetPerson = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'the person_id of the routes under /people' }),
    email: Type.String({ description: 'what the person signs in with' }),
    two_factor: Type.Boolean({ description: 'TOTP two-factor is on: signing in asks for a code' }),
    sessions: Type.Integer({ minimum: 0, description: 'sessions live now (signed in, not past either timeout)' }),
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'AdminCabinetPerson', additionalProperties: false },
);

export function cabinetPersonView(person: { id: string; email: string; totp_enabled_at: Date | null; sessions: number; created_at: Date }) {
  return { id: person.id, email: person.email, two_factor: person.totp_enabled_at !== null, sessions: person.sessions, created_at: person.created_at.toISOString() };
}

export const PartnerPersonParams = Type.Object({ id: Type.String({ format: 'uuid' }), person_id: Type.String({ format: 'uuid' }) });

/**
 * Free text an operator types: no NUL (PostgreSQL text cannot hold it) and no unpaired UTF-16
 * surrogate (not valid Unicode: jsonb refuses it). Either was a 500 before.
 */
export const STORABLE_TEXT_PATTERN = '^[^\\u0000\\p{Cs}]+$';

export const PartnerIdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
export const adminSecurity = [{ adminToken: [] }];

/** An order as the operator reads it: the partner's view plus what only the operator sees. */
export function adminOrderView(order: OrderRow, now: Date, base: LinkBase): Record<string, unknown> {
  return {
    ...orderView(order, now, base),
    stored_status: order.status,
    partner_id: order.partner_id,
    recipient_address_tag: order.recipient_address_tag,
    refund_address: order.refund_address,
    refund_address_tag: order.refund_address_tag,
    continued_at: order.continued_at?.toISOString() ?? null,
    amount_to_final: order.amount_to_final === null ? null : new Decimal(order.amount_to_final),
    quote_id: order.quote_id,
    attempts: order.attempts,
    next_attempt_at: order.next_attempt_at?.toISOString() ?? null,
    version: order.version,
    updated_at: order.updated_at.toISOString(),
    // The operator's only (docs/contract.md §10.8): never in the Order, a webhook or the cabinet.
    end_user_ip: order.end_user_ip,
    created_by_key_id: order.created_by_key_id,
  };
}

/** The simulated deposit of an order, as the simulator endpoints answer it. */
export const SimulatedDeposit = Type.Object({
  order_id: Type.String(),
  txid: Type.String(),
  amount: Type.Number(),
  confirmations: Type.Integer(),
  dropped: Type.Boolean(),
});

/** Answers with the order's simulated deposit (amount an exact number), or 404 when it has none. */
export function sendSimulatedDeposit(row: SimulatedDepositRow | undefined, reply: FastifyReply): FastifyReply {
  if (row === undefined) throw new ApiError('not_found', 'no simulated deposit for this order');
  return sendJsonText(
    reply,
    toJson({ order_id: row.order_id, txid: row.txid, amount: new Decimal(row.amount), confirmations: row.confirmations, dropped: row.dropped }),
  );
}

export const PoolChainParams = Type.Object({ chain: Type.String({ pattern: '^[A-Za-z0-9]{1,12}$' }) });

/** A pool's levels and its low-pool alert threshold (GET a pool, PUT its threshold). */
export const PoolWithThreshold = Type.Object({
  chain: Type.String(),
  available: Type.Integer({ description: 'addresses not yet handed to an order' }),
  assigned: Type.Integer(),
  low_at: Type.Integer({ description: 'the threshold in force: the pool is low while `available` is below it' }),
  low_at_default: Type.Boolean({ description: 'true: no threshold is set for this pool, the default is in force' }),
  low: Type.Boolean({ description: '`available` is below `low_at`' }),
});

export const PoolState = Type.Object({
  chain: Type.String(),
  available: Type.Integer({ description: 'addresses not yet handed to an order' }),
  assigned: Type.Integer(),
  added: Type.Optional(Type.Integer()),
  skipped: Type.Optional(Type.Integer({ description: 'already known addresses, never loaded twice' })),
});
