/**
 * "The same SQL the service runs per order", read off the service itself: the app is built
 * in-process once on an in-memory PGlite whose Kysely logs every compiled query, one
 * POST /api/v1/partner/orders is injected, and the statements it ran (one: the select of
 * create_partner_order, migration 0028) are kept with their parameters. The key is
 * used once before the capture, as under load: its row then comes from the API key cache (read
 * again once per CACHE_REFRESH_MS, not per request), so the ceiling does not pay a lookup the
 * service does not make. `pgbenchScript` turns that into a pgbench script; pglite-loop.ts replays it raw.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, sql } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import type { DatabaseHandle } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import type { Database } from '../src/db/schema/index.js';
import { TYPE_PARSERS } from '../src/db/type-parsers.js';

export interface CapturedStatement {
  sql: string;
  parameters: unknown[];
}

/** What a captured parameter stands for; anything else is a constant of the benchmarked order. */
export type ParameterRole =
  | 'key_id'
  | 'partner_id'
  | 'currency_from_id'
  | 'currency_to_id'
  | 'order_id'
  | 'short_id'
  | 'address'
  | 'n'
  | 'now'
  | 'expires_at'
  | 'max_open_orders';

export interface CapturedRequest {
  statements: CapturedStatement[];
  /** Per statement, per parameter: its role, or null for a constant. */
  roles: (ParameterRole | null)[][];
}

export interface OrderSqlCapture {
  /** POST /api/v1/partner/orders. */
  create: CapturedRequest;
  /** GET /api/v1/partner/orders/{id} of that order. */
  get: CapturedRequest;
  /** The order request body sent (the same one the HTTP benchmark sends). */
  body: string;
}

/** The order every order benchmark creates: BTC (an hd chain: derivation per order) to ETH. */
export const ORDER_BODY = JSON.stringify({
  coin_from: 'BTC',
  network_from: 'BTC',
  coin_to: 'ETH',
  network_to: 'ETH',
  amount_from: 0.1,
  rate_type: 'float',
  recipient_address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
});

/** The derivation index of the captured order: a value no other parameter has. */
const DERIVATION_MARK = 987_654_321;

export async function captureOrderSql(): Promise<OrderSqlCapture> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-capture-'));
  const adminToken = randomBytes(32).toString('base64url');
  const config = loadConfig({
    DATA_DIR: dataDir,
    SECRETS_KEY: randomBytes(32).toString('hex'),
    ADMIN_TOKEN: adminToken,
    LOG_LEVEL: 'warn',
    WORKER: 'off',
  });
  let statements: CapturedStatement[] | undefined;
  const client = await PGlite.create({ parsers: { ...TYPE_PARSERS } });
  const db = new Kysely<Database>({
    dialect: new PGliteDialect(client),
    log: (event) => {
      statements?.push({ sql: event.query.sql, parameters: [...event.query.parameters] });
    },
  });
  await migrateToLatest(db);
  const database: DatabaseHandle = {
    db,
    engine: 'pglite',
    ping: async () => true,
    close: () => db.destroy(),
  };
  const sink = new Writable({ write: (_chunk, _encoding, callback) => callback() });
  const app = await buildApp({ config, database, logDestination: sink });
  try {
    await app.ready();
    const admin = { authorization: `Bearer ${adminToken}` };
    const partner = await app.inject({ method: 'POST', url: '/admin/v1/partners', headers: admin, payload: { name: 'capture' } });
    const partnerId = partner.json<{ id: string }>().id;
    const key = await app.inject({ method: 'POST', url: `/admin/v1/partners/${partnerId}/keys`, headers: admin });
    const { api_key: apiKey, key_id: keyId } = key.json<{ api_key: string; key_id: string }>();

    // Steady state: the key's row is in the cache, as it is for every request of a benchmark run.
    const warm = await app.inject({ method: 'GET', url: '/api/v1/partner/account', headers: { authorization: `Bearer ${apiKey}` } });
    if (warm.statusCode !== 200) throw new Error(`capture key warm-up failed: ${warm.statusCode} ${warm.body}`);

    // An index no other parameter can equal, so the derivation index is recognised below.
    await sql`select setval('deposit_index_btc', ${DERIVATION_MARK - 1})`.execute(db);
    // Steady state for deposit addresses too: the first order draws a block of indexes and the
    // service derives addresses ahead, so the captured order takes a ready one (one draw per
    // block of orders is the service's only other statement, left out of the ceiling).
    const first = await app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      payload: ORDER_BODY,
    });
    if (first.statusCode !== 201) throw new Error(`capture warm-up order failed: ${first.statusCode} ${first.body}`);
    const created: CapturedStatement[] = (statements = []);
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/partner/orders',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      payload: ORDER_BODY,
    });
    statements = undefined;
    if (response.statusCode !== 201) throw new Error(`capture order failed: ${response.statusCode} ${response.body}`);
    if (created.some((statement) => DRAW.test(statement.sql))) created.splice(0, created.length, ...created.filter((statement) => !DRAW.test(statement.sql)));
    const order = response.json<{ id: string; short_id: string; deposit_address: string; created_at: string; expires_at: string }>();
    const currencies = await sql<{ id: string; coin: string }>`select id, coin from currencies where (coin, network) in (('BTC', 'BTC'), ('ETH', 'ETH'))`.execute(db);
    const currencyId = (coin: string) => currencies.rows.find((row) => row.coin === coin)?.id;
    const known = new Map<unknown, ParameterRole>([
      [keyId, 'key_id'],
      [partnerId, 'partner_id'],
      [currencyId('BTC'), 'currency_from_id'],
      [currencyId('ETH'), 'currency_to_id'],
      [order.id, 'order_id'],
      [order.short_id, 'short_id'],
      [order.deposit_address, 'address'],
    ]);
    const createdAt = new Date(order.created_at).getTime();
    const expiresAt = new Date(order.expires_at).getTime();
    const read: CapturedStatement[] = (statements = []);
    const got = await app.inject({ method: 'GET', url: `/api/v1/partner/orders/${order.id}`, headers: { authorization: `Bearer ${apiKey}` } });
    statements = undefined;
    if (got.statusCode !== 200) throw new Error(`capture order read failed: ${got.statusCode} ${got.body}`);
    const rolesOf = (captured: CapturedStatement[]): CapturedRequest => ({
      statements: captured,
      roles: captured.map((statement) =>
        statement.parameters.map((value): ParameterRole | null => {
          if (value instanceof Date) return value.getTime() === expiresAt ? 'expires_at' : value.getTime() === createdAt ? 'now' : null;
          if (value === DERIVATION_MARK) return 'n';
          return known.get(value) ?? null;
        }),
      ),
    });
    return { create: rolesOf(created), get: rolesOf(read), body: ORDER_BODY };
  } finally {
    await app.close();
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The stock's draw of a block of deposit indexes (one per block of orders, not per order). */
const DRAW = /^select nextval\(\$1::regclass\) as n from generate_series/i;
/** The order's one statement (migration 0028: 0020's with the webhook outbox row). */
const CREATE = /^(select .*) from create_partner_order\(\$1::jsonb, \$2::jsonb, \$3::jsonb, \$4::text, \$5::integer, \$6::text, \$7::text\)$/is;

/**
 * The order's statement for pgbench: the service's select of create_partner_order with the
 * captured rows as literals, and what must differ per order made by the server: a new uuid for
 * the order and its event (and its status token, from that uuid), a short id and an address from `n` (pgbench's \set, 52 random bits:
 * no collision in any run), the database's ids, times and the bench partner's open-order cap from -D. The extra work (a uuid, a
 * few jsonb concatenations) is the ceiling's, so it can only lower the ceiling's rate.
 */
function createStatement(select: string, parameters: unknown[]): string[] {
  const [order, deposit, event, idempotencyKey, , , webhookPayload] = parameters;
  const json = (value: unknown) => `${literal(value)}::jsonb`;
  const shortId = "upper(lpad(to_hex(:n::bigint >> 24), 8, '0')) || '-' || upper(lpad(to_hex(:n::bigint & 16777215), 6, '0'))";
  return [
    '\\set n random(1, 4503599627370495)',
    `${select} from (select gen_random_uuid() as new_id) o, create_partner_order(` +
      `${json(order)} || jsonb_build_object('id', o.new_id, 'short_id', ${shortId}, 'deposit_address', 'bc1qpgbench' || :n, ` +
      // The status token is unique too (migration 0050): 32 characters, as the service's.
      `'status_token', replace(o.new_id::text, '-', ''), ` +
      `'partner_id', :partner_id::text, 'currency_from_id', :currency_from_id::text, 'currency_to_id', :currency_to_id::text, ` +
      `'created_at', :now::text, 'updated_at', :now::text, 'expires_at', :expires_at::text), ` +
      `${json(deposit)} || jsonb_build_object('derivation_index', :n::bigint), ` +
      `${json(event)} || jsonb_build_object('id', gen_random_uuid(), 'order_id', o.new_id, 'created_at', :now::text), ` +
      `${literal(idempotencyKey)}::text, :max_open_orders::integer, ` +
      // The body stays the captured order's: the bench partner has no endpoint, so it is not stored.
      `'msg_' || replace(gen_random_uuid()::text, '-', ''), ${literal(webhookPayload)}::text);`,
  ];
}

/** Whether a captured statement is the order's one statement. */
export function isCreateStatement(sql: string): boolean {
  return CREATE.test(sql.trim());
}

/** The order statement's parameters for another order: fresh ids, this database's ids and times. */
export function createParameters(
  parameters: unknown[],
  order: {
    id: string;
    shortId: string;
    address: string;
    n: number;
    partnerId: string;
    currencyFromId: string;
    currencyToId: string;
    now: Date;
    expiresAt: Date;
    maxOpenOrders: number;
  },
): unknown[] {
  const [orderJson, depositJson, eventJson, idempotencyKey, , , webhookPayload] = parameters;
  const row = JSON.parse(String(orderJson)) as Record<string, unknown>;
  const deposit = JSON.parse(String(depositJson)) as Record<string, unknown>;
  const event = JSON.parse(String(eventJson)) as Record<string, unknown>;
  Object.assign(row, {
    id: order.id,
    short_id: order.shortId,
    // Unique per order (migration 0050): the id without its hyphens, 32 characters as the service's.
    status_token: order.id.replaceAll('-', ''),
    deposit_address: order.address,
    partner_id: order.partnerId,
    currency_from_id: order.currencyFromId,
    currency_to_id: order.currencyToId,
    created_at: order.now,
    updated_at: order.now,
    expires_at: order.expiresAt,
  });
  Object.assign(deposit, { derivation_index: order.n });
  Object.assign(event, { id: randomUUID(), order_id: order.id, created_at: order.now });
  const webhookId = `msg_${randomUUID().replaceAll('-', '')}`;
  return [JSON.stringify(row), JSON.stringify(deposit), JSON.stringify(event), idempotencyKey, order.maxOpenOrders, webhookId, webhookPayload];
}

/** Values the nextval statement of the script draws per order (the rest come from -D). */
const PER_ORDER: ReadonlySet<ParameterRole | null> = new Set(['n', 'order_id', 'short_id', 'address']);
const SQL_KEYWORD = /^(begin|commit)$/i;

/** A SQL literal of a captured constant. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value instanceof Date) return `'${value.toISOString()}'`;
  if (Buffer.isBuffer(value)) return `'\\x${value.toString('hex')}'`;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const quoted = text.replace(/'/g, "''");
  // pgbench reads ":name" anywhere in a command as a variable, even inside a string literal
  // (a JSON "key":null); an escape string spells the colon \x3a instead.
  return quoted.includes(':') ? `E'${quoted.replace(/\\/g, '\\\\').replace(/:/g, '\\x3a')}'` : `'${quoted}'`;
}

/**
 * The service's SQL with every string literal that holds a colon spelled as an escape string
 * (`'HH24:MI'` → `E'HH24\x3aMI'`: the same value), since pgbench takes ":name" anywhere in a
 * command for a variable (the order read's to_char format, issue 18).
 */
export function colonFree(text: string): string {
  return text.replace(/'((?:[^']|'')*)'/g, (whole, inner: string) =>
    inner.includes(':') ? `E'${inner.replace(/\\/g, '\\\\').replace(/:/g, '\\x3a')}'` : whole,
  );
}

/**
 * The capture as a pgbench script (run with `-M prepared`: the service sends these statements as named prepared statements):
 * per-database ids come from -D variables (key_id, partner_id, currency_from_id,
 * currency_to_id, now, expires_at), per-order values from `\set n` and the server (the order
 * statement: createStatement), constants as literals.
 */
export function pgbenchScript(capture: CapturedRequest, request: string): string {
  const creates = capture.statements.some((statement) => CREATE.test(statement.sql.trim()));
  const roles = [...capture.roles.flat(), ...(creates ? (['partner_id', 'currency_from_id', 'currency_to_id', 'now', 'expires_at', 'max_open_orders'] as const) : [])];
  const variables = [...new Set(roles)].filter((role) => role !== null && !PER_ORDER.has(role));
  const lines = [
    `-- Generated by bench/capture-sql.ts from one ${request} (bench/run.ts rewrites it on every run).`,
    '-- The statements the service ran, in order, with the same transaction shape; run with pgbench -M prepared',
    `-- and ${variables.map((name) => `-D ${name}=...`).join(' ')}`,
  ];
  capture.statements.forEach((statement, i) => {
    const text = statement.sql.trim();
    if (SQL_KEYWORD.test(text)) {
      lines.push(`${text.toUpperCase()};`);
      return;
    }
    const create = CREATE.exec(text);
    if (create !== null) {
      lines.push(...createStatement(create[1] ?? '', statement.parameters));
      return;
    }
    const nextval = /^select nextval\(\$1::regclass\) as n$/i.test(text);
    if (nextval) {
      // The service's nextval round trip, also drawing the order's uuid, short id and address
      // (the service makes those in JS): one statement, like the service's.
      const sequence = literal(statement.parameters[0]);
      lines.push(
        `select n, gen_random_uuid() as order_id, 'PB-' || lpad(upper(to_hex(n)), 6, '0') as short_id, 'bc1qpgbench' || n as address ` +
          `from (select nextval(${sequence}::regclass) as n) s \\gset`,
      );
      return;
    }
    const roles = capture.roles[i] ?? [];
    const substituted = colonFree(text).replace(/\$(\d+)/g, (_match, digits: string) => {
      const index = Number(digits) - 1;
      const role = roles[index];
      return role === null || role === undefined ? literal(statement.parameters[index]) : `:${role}`;
    });
    lines.push(`${substituted};`);
  });
  return `${lines.join('\n')}\n`;
}
