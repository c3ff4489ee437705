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
import { preparedQuery } from '../prepared-statements.js';
import type { Database, Db } from '../schema/index.js';
import type { OrderStatus } from '../../domain/order-status.js';
import type { EventActor, NewOrder, OrderRow } from '../schema/orders.js';
import { PARTNER_ORDER_COLUMNS, PARTNER_ORDER_WIRE_SELECT, type PartnerOrderRow, type PartnerOrderWireRow } from '../views/partner-order-view.js';

export type { PartnerOrderRow, PartnerOrderWireRow };

export async function insertOrder(db: Db, order: NewOrder): Promise<OrderRow> {
  return db.insertInto('orders').values(order).returningAll().executeTakeFirstOrThrow();
}

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

/** One partner's order by id and by short id, compiled once: parameters are [partner id, key]. */
interface PartnerOrderQueries<Row> {
  byId: CompiledQuery<Row>;
  byShortId: CompiledQuery<Row>;
}

function compilePartnerOrderQueries<Row>(select: SelectQueryBuilder<Database, 'orders', Row>, prepareAs?: string): PartnerOrderQueries<Row> {
  const compile = (column: 'id' | 'short_id'): CompiledQuery<Row> => {
    const compiled = select.where('partner_id', '=', 'partner').where(column, '=', 'key').compile();
    if (compiled.parameters.length !== 2 || compiled.parameters[0] !== 'partner' || compiled.parameters[1] !== 'key') {
      throw new Error(`unexpected parameters of ${compiled.sql}`);
    }
    return prepareAs === undefined ? compiled : preparedQuery<Row>(`${prepareAs}_by_${column}`, compiled.sql);
  };
  return { byId: compile('id'), byShortId: compile('short_id') };
}

const FULL_ORDER = compilePartnerOrderQueries(sqlBuilder.selectFrom('orders').selectAll());
/**
 * The columns the partner's view is made of (db/views/partner-order-view.ts), and nothing else;
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

/** GET /partner/orders/{id}'s query over PARTNER_ORDER_WIRE_SELECTIONS. */
const PARTNER_ORDER_WIRE = compilePartnerOrderQueries(
  sqlBuilder.selectFrom('orders').select(PARTNER_ORDER_WIRE_SELECTIONS),
  'partner_order_wire',
) as unknown as PartnerOrderQueries<PartnerOrderWireRow>;

/**
 * Runs a query compiled once with this request's parameters: no query building or compiling
 * per call. The partner filter is part of the query: another partner's order is simply not found.
 */
async function findByPartner<Row>(
  db: Db,
  queries: PartnerOrderQueries<Row>,
  partnerId: string,
  by: { id: string } | { shortId: string },
): Promise<Row | undefined> {
  const query: CompiledQuery<Row> = 'id' in by
    ? { ...queries.byId, parameters: [partnerId, by.id] }
    : { ...queries.byShortId, parameters: [partnerId, by.shortId.toUpperCase()] };
  const result = await db.executeQuery(query);
  return result.rows[0];
}

/** The whole row. Short ids are stored upper case; the lookup is case-insensitive. */
export async function findPartnerOrder(
  db: Db,
  partnerId: string,
  by: { id: string } | { shortId: string },
): Promise<OrderRow | undefined> {
  return findByPartner(db, FULL_ORDER, partnerId, by);
}

/** Only what the partner's view shows (GET /orders/{id}): fewer columns to fetch and parse. */
export async function findPartnerOrderView(
  db: Db,
  partnerId: string,
  by: { id: string } | { shortId: string },
): Promise<PartnerOrderRow | undefined> {
  return findByPartner(db, PARTNER_ORDER, partnerId, by);
}

/** findPartnerOrderView's order as GET writes it (PartnerOrderWireRow). */
export async function findPartnerOrderWire(
  db: Db,
  partnerId: string,
  by: { id: string } | { shortId: string },
): Promise<PartnerOrderWireRow | undefined> {
  return findByPartner(db, PARTNER_ORDER_WIRE, partnerId, by);
}

export async function findOrder(db: Db, id: string): Promise<OrderRow | undefined> {
  return db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function orderUsingQuote(db: Db, quoteId: string): Promise<string | undefined> {
  const row = await db.selectFrom('orders').select('id').where('quote_id', '=', quoteId).executeTakeFirst();
  return row?.id;
}

export interface NewOrderEvent {
  order_id: string;
  from_status: OrderStatus | null;
  to_status: OrderStatus;
  reason: string | null;
  data: Record<string, unknown> | null;
  order_version: number;
  /** Who made the move; default system. */
  actor?: EventActor;
  created_at: Date;
}

export async function insertOrderEvent(db: Db, event: NewOrderEvent): Promise<void> {
  await db
    .insertInto('order_events')
    .values({ ...event, data: event.data === null ? null : JSON.stringify(event.data) })
    .execute();
}
