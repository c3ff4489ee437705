import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
  type CompiledQuery,
  type SelectQueryBuilder,
} from 'kysely';
import { PUBLIC_ORDER_COLUMNS, type PublicOrderRow } from '../../views/public-order-view.js';
import { preparedQuery } from '../prepared-statements.js';
import type { Database, Db } from '../schema/index.js';
import type { EventActor, OrderRow } from '../schema/orders.js';
import { PARTNER_ORDER_COLUMNS, PARTNER_ORDER_WIRE_SELECT, type PartnerOrderRow, type PartnerOrderWireRow } from '../../views/partner-order-view.js';

export type { PartnerOrderRow, PartnerOrderWireRow };

/**
 * Builds SQL and never runs it. Both engines (pg and PGlite) speak PostgreSQL through Kysely's
 * PostgreSQL compiler, so SQL compiled here once runs on either.
 */
const sqlBuilder = new Kysely<Database>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/**
 * One partner's order by id and by short id, compiled once: parameters are [partner id, key,
 * sandbox, creator], where sandbox null reaches either mode (docs/contract.md §10.2: a key reaches its own
 * only) and creator null orders made by any key (docs/contract.md §10.9: a client key reaches its own only).
 */
interface PartnerOrderQueries<Row> {
  byId: CompiledQuery<Row>;
  byShortId: CompiledQuery<Row>;
}

function compilePartnerOrderQueries<Row>(select: SelectQueryBuilder<Database, 'orders', Row>, prepareAs?: string): PartnerOrderQueries<Row> {
  const compile = (column: 'id' | 'short_id'): CompiledQuery<Row> => {
    const compiled = select
      .where('partner_id', '=', 'partner')
      .where(column, '=', 'key')
      .where(sql<boolean>`sandbox = coalesce(${'sandbox'}::boolean, sandbox)`)
      .where(sql<boolean>`created_by_key_id is not distinct from coalesce(${'creator'}::text, created_by_key_id)`)
      .compile();
    const [partner, key, sandbox, creator, ...more] = compiled.parameters;
    if (partner !== 'partner' || key !== 'key' || sandbox !== 'sandbox' || creator !== 'creator' || more.length > 0) {
      throw new Error(`unexpected parameters of ${compiled.sql}`);
    }
    return prepareAs === undefined ? compiled : preparedQuery<Row>(`${prepareAs}_by_${column}`, compiled.sql);
  };
  return { byId: compile('id'), byShortId: compile('short_id') };
}

/**
 * The columns the partner's view is made of (views/partner-order-view.ts), and nothing else;
 * a named prepared statement on PostgreSQL (GET /partner/orders/{id}: parsed and planned once
 * per connection).
 */
const PARTNER_ORDER = compilePartnerOrderQueries(sqlBuilder.selectFrom('orders').select(PARTNER_ORDER_COLUMNS), 'partner_order');

/**
 * The view's columns as the response writes them (timestamps as ISO text, NUMERIC as its JSON
 * number: PARTNER_ORDER_WIRE_SELECT), as Kysely selections: GET /partner/orders/{id} and the
 * list select these, so neither parses a Date or decimal per row only to write it back.
 */
export const PARTNER_ORDER_WIRE_SELECTIONS = PARTNER_ORDER_WIRE_SELECT.map(([column, expression]) => sql.raw<unknown>(expression).as(column));

/** A wire row with the key that created the order: who else may read it from a process's cache. */
export type OwnedPartnerOrderWireRow = PartnerOrderWireRow & { created_by_key_id: string | null };

/**
 * GET /partner/orders/{id}'s query over PARTNER_ORDER_WIRE_SELECTIONS, and the creating key (the
 * order read cache serves a client key only the orders it created, services/order-read-cache.ts).
 */
const PARTNER_ORDER_WIRE = compilePartnerOrderQueries(
  sqlBuilder.selectFrom('orders').select([...PARTNER_ORDER_WIRE_SELECTIONS, 'created_by_key_id']),
  'partner_order_wire',
) as unknown as PartnerOrderQueries<OwnedPartnerOrderWireRow>;

/** Whose order: one partner's, of one mode (`sandbox` set: a key's) or of either (undefined: the cabinet's). */
export interface OrderOwner {
  partnerId: string;
  sandbox?: boolean | undefined;
  /** Only orders this key created (a client key, docs/contract.md §10.9); undefined: any. */
  createdBy?: string | undefined;
}

/**
 * Runs a query compiled once with this request's parameters: no query building or compiling
 * per call. The partner filter is part of the query: another partner's order is simply not found.
 */
async function findByPartner<Row>(
  db: Db,
  queries: PartnerOrderQueries<Row>,
  owner: OrderOwner,
  by: { id: string } | { shortId: string },
): Promise<Row | undefined> {
  const sandbox = owner.sandbox ?? null;
  const creator = owner.createdBy ?? null;
  const query: CompiledQuery<Row> = 'id' in by
    ? { ...queries.byId, parameters: [owner.partnerId, by.id, sandbox, creator] }
    : { ...queries.byShortId, parameters: [owner.partnerId, by.shortId.toUpperCase(), sandbox, creator] };
  const result = await db.executeQuery(query);
  return result.rows[0];
}

/**
 * Only what the partner's view shows (GET /orders/{id}): fewer columns to fetch and parse. Short
 * ids are stored upper case; the lookup is case-insensitive.
 */
export async function findPartnerOrderView(
  db: Db,
  owner: OrderOwner,
  by: { id: string } | { shortId: string },
): Promise<PartnerOrderRow | undefined> {
  return findByPartner(db, PARTNER_ORDER, owner, by);
}

/** findPartnerOrderView's order as GET writes it (PartnerOrderWireRow). */
export async function findPartnerOrderWire(
  db: Db,
  owner: OrderOwner,
  by: { id: string } | { shortId: string },
): Promise<OwnedPartnerOrderWireRow | undefined> {
  return findByPartner(db, PARTNER_ORDER_WIRE, owner, by);
}

export async function findOrder(db: Db, id: string): Promise<OrderRow | undefined> {
  return db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The id of the partner's order with this external_id in one mode (docs/contract.md §10.8), if any. */
export async function orderWithExternalId(db: Db, owner: { partnerId: string; sandbox: boolean }, externalId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('orders')
    .select('id')
    .where('partner_id', '=', owner.partnerId)
    .where('sandbox', '=', owner.sandbox)
    .where('external_id', '=', externalId)
    .executeTakeFirst();
  return row?.id;
}

export async function orderUsingQuote(db: Db, quoteId: string): Promise<string | undefined> {
  const row = await db.selectFrom('orders').select('id').where('quote_id', '=', quoteId).executeTakeFirst();
  return row?.id;
}


/**
 * Who makes a move (docs/contract.md §10.2): a partner's key or a cabinet person (both stored as actor
 * `partner`, with the key id or the person), the operator, or the system (worker, chains).
 */
export type MoveActor = 'operator' | 'system' | { keyId: string } | { userId: string };

/** The order_events columns that name the actor of a move. */
export function actorColumns(actor: MoveActor): { actor: EventActor; actor_key_id: string | null; actor_user_id: string | null } {
  if (typeof actor === 'string') return { actor, actor_key_id: null, actor_user_id: null };
  return 'keyId' in actor
    ? { actor: 'partner', actor_key_id: actor.keyId, actor_user_id: null }
    : { actor: 'partner', actor_key_id: null, actor_user_id: actor.userId };
}

/**
 * The order whose status page token is `token` (docs/contract.md §10.10), through orders_status_token_key
 * (migration 0050): an exact match of the whole token, never a prefix or a short id.
 */
export async function findPublicOrder(db: Db, token: string): Promise<(PublicOrderRow & Pick<OrderRow, 'version'>) | undefined> {
  // The version too: the status page tells its script which version it shows.
  return db.selectFrom('orders').select([...PUBLIC_ORDER_COLUMNS, 'version']).where('status_token', '=', token).executeTakeFirst();
}

/** The id of the order with this short id (stored upper case), if any. */
export async function findOrderIdByShortId(db: Db, shortId: string): Promise<string | undefined> {
  return (await db.selectFrom('orders').select('id').where('short_id', '=', shortId).executeTakeFirst())?.id;
}

/** Ids of orders whose short id ends in `-<suffix>` under any prefix, at most `limit` (a scan: rare, operator only). */
export async function findOrderIdsByShortIdSuffix(db: Db, suffix: string, limit: number): Promise<string[]> {
  return (await db.selectFrom('orders').select('id').where(sql<string>`right(short_id, 6)`, '=', suffix).limit(limit).execute()).map((row) => row.id);
}
