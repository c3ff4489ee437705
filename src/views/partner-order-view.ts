import { Type, type SchemaOptions, type TSchema } from '@sinclair/typebox';
import { actionsFor, orderContext, ORDER_ACTIONS, type OrderAction } from '../domain/order-lifecycle.js';
import { ORDER_STATUSES, statusAt, type OrderStatus } from '../domain/order-status.js';
import { DecimalText, decimalTextLiteral, writeNumber, writeString } from '../json.js';
import type { OrderMetadata, OrderRow } from '../db/schema/orders.js';

/**
 * The partner's view of an order (the Order object of docs/contract.md §2.3), defined once: per field, the
 * columns it is made of, its JSON schema, and how its value is written. Everything else is
 * derived from this table:
 * - the columns GET /partner/orders/{id} selects (PARTNER_ORDER_COLUMNS, PartnerOrderRow),
 *   by the query orders-repository.ts compiles once;
 * - the response schema (`Order` in OpenAPI), the view object and the direct JSON writer of the
 *   routes (routes/v1/order-view.ts).
 * It sits in db/ because the repository, the lowest of its readers, selects its columns; a new
 * field is one line here.
 */

/**
 * A timestamp or NUMERIC column as GET /partner/orders/{id} reads it: as the text the
 * response shows, made by PostgreSQL, so the server parses nothing per row only to write it back.
 */
type WireSql = 'time' | 'decimal';

/** A column's value in the wire row: a timestamp is its ISO text; anything else is as it was. */
type Wire<T> = T extends Date ? string : T;

/**
 * A JSON type a column's value is shown as: its schema, and its value in the forms the view is
 * written in. `json(x)` is the text toJson writes for `value(x)`, byte for byte, and `wire(w)`
 * the same text from the column read as `sql` says (w: PostgreSQL's text of x).
 */
interface Kind<T> {
  schema(options?: SchemaOptions): TSchema;
  /** What toJson is given (a DecimalText for NUMERIC text). */
  value(value: T): unknown;
  /** The same value as JSON text, for the direct writer. */
  json(value: T): string;
  /** How the wire row's query reads the column, when not as it is. */
  readonly sql?: WireSql;
  /** The JSON text from the wire row's value. */
  wire(value: Wire<T>): string;
}

const text: Kind<string> = {
  schema: (options) => Type.String(options),
  value: (value) => value,
  json: writeString,
  wire: writeString,
};

/** A timestamp, written as its ISO 8601 text in UTC (`2026-06-15T12:00:00.000Z`). */
const time: Kind<Date> = {
  schema: (options) => Type.String({ format: 'date-time', ...options }),
  value: (value) => value.toISOString(),
  json: (value) => writeString(value.toISOString()),
  sql: 'time',
  // Digits, '-', ':', '.', 'T' and 'Z': nothing to escape.
  wire: (value) => `"${value}"`,
};

/** NUMERIC text as the driver returns it, written as its exact JSON number (never a float). */
const decimal: Kind<string> = {
  schema: (options) => Type.Number(options),
  value: (value) => new DecimalText(value),
  json: decimalTextLiteral,
  sql: 'decimal',
  // trim_scale's text: decimalTextLiteral's output already (no trailing zeros, never an exponent).
  wire: (value) => value,
};

const boolean: Kind<boolean> = {
  schema: (options) => Type.Boolean(options),
  value: (value) => value,
  json: (value) => (value ? 'true' : 'false'),
  wire: (value) => (value ? 'true' : 'false'),
};

const integer: Kind<number> = {
  schema: (options) => Type.Integer(options),
  value: (value) => value,
  json: writeNumber,
  wire: writeNumber,
};

function oneOf<Value extends string>(values: readonly Value[]): Kind<Value> {
  return {
    schema: (options) => Type.Union(values.map((value) => Type.Literal(value)), options),
    value: (value) => value,
    json: writeString,
    wire: writeString,
  };
}

function listOf<Value extends string>(values: readonly Value[]): Kind<readonly Value[]> {
  return {
    schema: (options) => Type.Array(Type.Union(values.map((value) => Type.Literal(value))), options),
    value: (value) => value,
    json: (value) => `[${value.map(writeString).join(',')}]`,
    wire: (value) => `[${value.map(writeString).join(',')}]`,
  };
}

/**
 * The partner's metadata (docs/contract.md §10.8), an object of strings, written with its keys in one
 * order: jsonb keeps keys in an order of its own (shorter first), and the body of order.created
 * is written from the request's object before the row exists, so one order everywhere makes GET,
 * the list and every webhook body agree byte for byte. That order is a JavaScript object's built
 * from the keys sorted (integer-like keys first, ascending, then the rest sorted by UTF-16 code
 * units), so the object toJson is given writes the same text.
 */
const stringMap: Kind<OrderMetadata> = {
  schema: (options) => Type.Object({}, { additionalProperties: Type.String(), ...options }),
  value: ordered,
  json: writeStringMap,
  wire: writeStringMap,
};

function ordered(value: OrderMetadata): Record<string, string> {
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function writeStringMap(value: OrderMetadata): string {
  return `{${Object.entries(ordered(value))
    .map(([key, item]) => `${writeString(key)}:${writeString(item)}`)
    .join(',')}}`;
}

/** The partner's commission on an order (docs/contract.md §7.8), from the columns the exchange recorded it in, and the status. */
interface FeeColumns {
  status: OrderStatus;
  partner_fee: string | null;
  partner_fee_usd: string | null;
  coin_to: string;
}

/**
 * Whether the Order shows the fee its exchange recorded: not before the exchange (nothing is
 * recorded), nor once the order ended failed (its payout failed for good, or the operator failed
 * it after the exchange): it earned nothing, so neither GET /partner/stats nor the operator's report counts it, and the sum of
 * the partner_fee the Orders show equals their figure (docs/contract.md §7.8). The columns keep
 * what the exchange recorded.
 */
function earned(row: FeeColumns): row is FeeColumns & { partner_fee: string; partner_fee_usd: string } {
  return row.status !== 'failed' && row.partner_fee !== null && row.partner_fee_usd !== null;
}

/** `{"amount", "coin", "usd"}` once the exchange recorded it (unless the order failed), else null; amounts exact. */
const partnerFee: ViewField<FeeColumns> = {
  columns: ['status', 'partner_fee', 'partner_fee_usd', 'coin_to'],
  schema: Type.Union(
    [
      Type.Object(
        {
          amount: Type.Number({ description: 'the partner\'s markup share, in coin' }),
          coin: Type.String({ description: 'coin_to' }),
          usd: Type.Number({ description: 'its USD value at the exchange moment (8 decimals, rounded down)' }),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ],
    {
      description:
        'v1.1: the partner\'s commission on this order, recorded at the exchange moment (coin_to, and USD at that ' +
        'moment\'s price); null before the exchange, and on a failed order (nothing earned: GET /partner/stats leaves ' +
        'it out too)',
    },
  ),
  value: (row) =>
    earned(row) ? { amount: new DecimalText(row.partner_fee), coin: row.coin_to, usd: new DecimalText(row.partner_fee_usd) } : null,
  json: (row) =>
    earned(row)
      ? `{"amount":${decimalTextLiteral(row.partner_fee)},"coin":${writeString(row.coin_to)},"usd":${decimalTextLiteral(row.partner_fee_usd)}}`
      : 'null',
  sql: { partner_fee: 'decimal', partner_fee_usd: 'decimal' },
  wire: (row) => (earned(row) ? `{"amount":${row.partner_fee},"coin":${writeString(row.coin_to)},"usd":${row.partner_fee_usd}}` : 'null'),
};

/** The columns an order's network fee is stored in at creation (migration 0046), and its coin. */
interface NetworkFeeColumns {
  network_fee: string | null;
  network_fee_usd: string | null;
  coin_to: string;
}

function feeStored(row: NetworkFeeColumns): row is NetworkFeeColumns & { network_fee: string; network_fee_usd: string } {
  return row.network_fee !== null && row.network_fee_usd !== null;
}

/** `{"amount", "coin", "usd"}` as stored at creation (docs/contract.md §10.6); null on an order made before v1.2. */
const networkFee: ViewField<NetworkFeeColumns> = {
  columns: ['network_fee', 'network_fee_usd', 'coin_to'],
  schema: Type.Union(
    [
      Type.Object(
        {
          amount: Type.Number({ description: 'the payout network fee, in coin_to: already deducted from amount_to_expected' }),
          coin: Type.String({ description: 'coin_to' }),
          usd: Type.Number({ description: 'its USD value at the creation\'s coin_to price (8 decimals, rounded down)' }),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ],
    {
      description:
        'v1.2: the payout network fee the order was priced with (coin_to, already deducted from amount_to_expected) and its ' +
        'USD value, stored at creation and never changed; null on orders created before v1.2',
    },
  ),
  value: (row) =>
    feeStored(row) ? { amount: new DecimalText(row.network_fee), coin: row.coin_to, usd: new DecimalText(row.network_fee_usd) } : null,
  json: (row) =>
    feeStored(row)
      ? `{"amount":${decimalTextLiteral(row.network_fee)},"coin":${writeString(row.coin_to)},"usd":${decimalTextLiteral(row.network_fee_usd)}}`
      : 'null',
  sql: { network_fee: 'decimal', network_fee_usd: 'decimal' },
  wire: (row) => (feeStored(row) ? `{"amount":${row.network_fee},"coin":${writeString(row.coin_to)},"usd":${row.network_fee_usd}}` : 'null'),
};

/**
 * What the payout sent (docs/contract.md §10.1), shown once it is sent: the exchange stores the amount it
 * filled (`amount_to_final`, the payout row's amount) and the rate it makes (`rate_final`), and
 * the payout's txid says it left. Before that, or when the payout failed, null.
 */
function whenPaidOut(name: 'amount_to_final' | 'rate_final', description: string): ViewField<Pick<OrderRow, 'amount_to_final' | 'rate_final' | 'payout_txid'>> {
  const sent = (row: { payout_txid: string | null }): boolean => row.payout_txid !== null;
  return {
    columns: [name, 'payout_txid'],
    schema: Type.Union([Type.Number(), Type.Null()], { description }),
    value: (row) => {
      const value = row[name];
      return sent(row) && value !== null ? new DecimalText(value) : null;
    },
    json: (row) => {
      const value = row[name];
      return sent(row) && value !== null ? decimalTextLiteral(value) : 'null';
    },
    sql: { [name]: 'decimal' },
    wire: (row) => {
      const value = row[name];
      return sent(row) && value !== null ? value : 'null';
    },
  };
}

function nullable<T>(kind: Kind<T>): Kind<T | null> {
  return {
    schema: (options) => Type.Union([kind.schema(), Type.Null()], options),
    value: (value) => (value === null ? null : kind.value(value)),
    json: (value) => (value === null ? 'null' : kind.json(value)),
    ...(kind.sql === undefined ? {} : { sql: kind.sql }),
    wire: (value) => (value === null ? 'null' : kind.wire(value)),
  };
}

/**
 * Where the Order's links begin (docs/contract.md §10.10): PUBLIC_URL (`https://exchange.example`), or ''
 * when it is unset, which makes them relative (`/status/{token}`): the same Order is written in
 * answers and in webhook bodies, and a webhook has no request whose origin it could take
 * (docs/adr/0034-status-links.md). Every writer of the view is given it.
 */
export type LinkBase = string;

/** The Order's link base from PUBLIC_URL (config.cabinet.publicUrl): '' when unset. */
export function linkBase(publicUrl: string | undefined): LinkBase {
  return publicUrl ?? '';
}

/** One field of a view over rows of type Row. */
export interface ViewField<Row> {
  /** The columns its value is made of. */
  readonly columns: readonly (keyof Row & string)[];
  readonly schema: TSchema;
  /** Its value for toJson, at `now`, its links on `base`. */
  readonly value: (row: Row, now: Date, base: LinkBase) => unknown;
  /** Its value as JSON text, at `now`, its links on `base`. */
  readonly json: (row: Row, now: Date, base: LinkBase) => string;
  /** Its columns the wire row reads as text (timestamps, NUMERIC). */
  readonly sql: Readonly<Partial<Record<keyof Row & string, WireSql>>>;
  /** The same JSON text from the wire row, at `now` (`nowIso`: now.toISOString()). */
  readonly wire: (row: WireRow<Row>, nowIso: string, base: LinkBase) => string;
}

/**
 * docs/contract.md §10.10: the end user's status page, `{PUBLIC_URL}/status/{token}`. The token (migration
 * 0050) is base64url or hex: nothing in it needs escaping in a URL or in JSON.
 */
const statusUrl: ViewField<Pick<OrderRow, 'status_token'>> = {
  columns: ['status_token'],
  schema: Type.String({
    description:
      'v1.2: the order\'s public status page for the end user ({PUBLIC_URL}/status/{token}; relative, /status/{token}, when the ' +
      'service has no PUBLIC_URL): no key needed, shows the order\'s amounts, addresses and status only. Its JSON twin is ' +
      'GET /api/v1/public/orders/{token}. Anyone with the link can read the order: give it to the order\'s end user only',
  }),
  value: (row, _now, base) => `${base}/status/${row.status_token}`,
  json: (row, _now, base) => writeString(`${base}/status/${row.status_token}`),
  sql: {},
  wire: (row, _nowIso, base) => writeString(`${base}/status/${row.status_token}`),
};

/** A row as the wire query reads it. */
export type WireRow<Row> = { [Column in keyof Row]: Wire<Row[Column]> };

/**
 * A field computed from one or more columns: `read` from the row, `readWire` the same from the
 * wire row (whose timestamps are ISO text, compared as text: same length, so text order is time
 * order).
 */
function derived<Row, T>(
  columns: readonly (keyof Row & string)[],
  kind: Kind<T>,
  read: (row: Row, now: Date) => T,
  readWire: (row: WireRow<Row>, nowIso: string) => Wire<T>,
  options?: SchemaOptions,
): ViewField<Row> {
  return {
    columns,
    schema: kind.schema(options),
    value: (row, now) => kind.value(read(row, now)),
    json: (row, now) => kind.json(read(row, now)),
    // Read as the column fields that show them say: a timestamp or NUMERIC a derived field reads
    // must be shown by one (test/orders/order-view-writer.test.ts compares both writers).
    sql: {} as Partial<Record<keyof Row & string, WireSql>>,
    wire: (row, nowIso) => kind.wire(readWire(row, nowIso)),
  };
}

/** A field that shows one column as it is stored. */
function column<Column extends string, T>(name: Column, kind: Kind<T>, options?: SchemaOptions): ViewField<Record<Column, T>> {
  return {
    columns: [name],
    schema: kind.schema(options),
    value: (row) => kind.value(row[name]),
    json: (row) => kind.json(row[name]),
    sql: (kind.sql === undefined ? {} : { [name]: kind.sql }) as Partial<Record<Column, WireSql>>,
    wire: (row) => kind.wire(row[name]),
  };
}

/**
 * Field name (the JSON key, in the order written) → field. The public order view
 * (public-order-view.ts) takes some of them, so its amounts and times are written alike.
 */
export const ORDER_VIEW_FIELDS = {
  id: column('id', text, { format: 'uuid', description: 'order identifier' }),
  short_id: column('short_id', text, { description: 'prefix, hyphen, six of A-Z0-9; lookups are case-insensitive' }),
  // A waiting order reads expired from expires_at on, before the sweep has stored it.
  status: derived<Pick<OrderRow, 'status' | 'expires_at'>, OrderStatus>(
    ['status', 'expires_at'],
    oneOf(ORDER_STATUSES),
    (row, now) => statusAt(row.status, row.expires_at, now),
    (row, nowIso) => statusAt(row.status, row.expires_at, nowIso),
  ),
  created_at: column('created_at', time),
  expires_at: column('expires_at', time, { description: '30 minutes after creation' }),
  updated_at: column('updated_at', time, { description: 'v1.2: when the order last changed (any move, action or deposit update)' }),
  coin_from: column('coin_from', text),
  network_from: column('network_from', text),
  coin_to: column('coin_to', text),
  network_to: column('network_to', text),
  amount_from_expected: column('amount_from_expected', decimal, { description: 'amount the user is expected to send' }),
  amount_to_expected: column('amount_to_expected', decimal, { description: 'amount the recipient is expected to receive' }),
  rate_type: column('rate_type', oneOf(['float', 'fixed'] as const)),
  rate_quoted: column('rate_quoted', decimal, { description: 'coin_to per 1 coin_from quoted at creation, net of fees' }),
  amount_to_final: whenPaidOut(
    'amount_to_final',
    'v1.2: exactly what the payout sent, in coin_to (equal to the payout, to the last decimal); null until the payout is sent. ' +
      'It differs from amount_to_expected when the deposit differed (float), or after continue',
  ),
  rate_final: whenPaidOut(
    'rate_final',
    'v1.2: amount_to_final / amount_from_received, rounded down to coin_to\'s decimals, for display; null until the payout is sent',
  ),
  network_fee: networkFee,
  eta_seconds: column('eta_seconds', nullable(integer), {
    description:
      'v1.2: estimated seconds from the deposit being sent to the payout seen on chain (deposit confirmations × block time + ' +
      'payout allowance), as quoted at creation and never changed; null on orders created before v1.2',
  }),
  deposit_address: column('deposit_address', text),
  deposit_address_tag: column('deposit_address_tag', nullable(text), { description: 'memo or tag, null when none' }),
  deposit_uri: column('deposit_uri', nullable(text), {
    description:
      'v1.1: the chain\'s standard payment URI for the deposit (BIP-21, EIP-681 with atomic amounts, Solana Pay, ' +
      'ripple: with dt, SEP-0007, ton://transfer), amount and tag included; null where the chain has none',
  }),
  recipient_address: column('recipient_address', text),
  recipient_address_tag: column('recipient_address_tag', nullable(text), { description: 'v1.2: the recipient\'s memo or tag, null when none' }),
  refund_address: column('refund_address', nullable(text), {
    description: 'v1.2: where a refund goes (set at creation or by PUT …/refund-address); null when none',
  }),
  refund_address_tag: column('refund_address_tag', nullable(text), { description: 'v1.2: the refund address\'s memo or tag, null when none' }),
  deposit_txid: column('deposit_txid', nullable(text)),
  deposit_confirmations: column('deposit_confirmations', nullable(integer)),
  deposit_confirmations_required: column('deposit_confirmations_required', integer),
  payout_txid: column('payout_txid', nullable(text)),
  amount_from_received: column('amount_from_received', nullable(decimal), {
    description: 'extension: what the deposit actually brought; null until a deposit is detected',
  }),
  refund_txid: column('refund_txid', nullable(text), { description: 'extension: refund transaction hash' }),
  amount_refunded: column('amount_refunded', nullable(decimal), {
    description: 'v1.2: exactly what the refund sent, in coin_from (equal to the refund, to the last decimal); null until a refund is sent',
  }),
  status_reason: column('status_reason', nullable(text), {
    description:
      'extension: why the order went to refunding or failed (amount_below_min, amount_above_max, ' +
      'fixed_rate_mismatch, late_deposit, exchange_failed, payout_failed, operator), was cancelled (cancelled), ' +
      'or, while sending, that its payout waits for the hot wallet to cover it (awaiting_liquidity)',
  }),
  sandbox: column('sandbox', boolean, {
    description:
      'v1.1: made with a sandbox key (pk_test_…): runs on the simulator only, never on a chain or an exchange; ' +
      'deposit to it with POST /partner/sandbox/orders/{order_id}/deposit. False for live orders',
  }),
  // What the partner may do now: the actions whose move the lifecycle table allows at `now`.
  actions: derived<
    Pick<OrderRow, 'status' | 'expires_at' | 'refund_address' | 'refund_address_tag' | 'deposit_address_tag' | 'refund_hold_until'>,
    readonly OrderAction[]
  >(
    ['status', 'expires_at', 'refund_address', 'refund_address_tag', 'deposit_address_tag', 'refund_hold_until'],
    listOf(ORDER_ACTIONS),
    (row, now) => actionsFor(statusAt(row.status, row.expires_at, now), orderContext(row, now)),
    (row, nowIso) => actionsFor(statusAt(row.status, row.expires_at, nowIso), orderContext(row, nowIso)),
    {
      description:
        'v1.1: what may be done to the order now, in this order: cancel (POST …/cancel, waiting for a deposit), ' +
        'set_refund_address (PUT …/refund-address, until a refund is requested), continue and refund (POST …/continue, ' +
        'POST …/refund, while a refund is held for a choice). Empty when nothing; any other action is 409',
    },
  ),
  refund_hold_until: column('refund_hold_until', nullable(time), {
    description:
      'v1.1: while a refund is held for a choice (actions continue and refund), when the hold ends and the refund ' +
      'proceeds by itself (REFUND_HOLD_MINUTES after the exchange was refused); null otherwise',
  }),
  partner_fee: partnerFee,
  external_id: column('external_id', nullable(text), {
    description:
      'v1.2: the partner\'s own reference sent at creation (at most 64 characters, unique per partner and mode: a second ' +
      'order with it is 409 external_id_conflict); null when none. GET /partner/orders?search= finds it',
  }),
  metadata: column('metadata', stringMap, {
    description: 'v1.2: the partner\'s string map sent at creation (at most 10 keys of up to 40 characters, values up to 64), keys sorted; {} when none',
  }),
  status_url: statusUrl,
  version: column('version', integer, {
    description:
      'v1.2: 0 at creation, +1 with every move (status change, action, deposit update): what changed is newer when this is ' +
      'larger. The status stream\'s event ids are {id}:{version} (GET /partner/orders/stream)',
  }),
};
const FIELDS = ORDER_VIEW_FIELDS;

type ColumnsOf<Field> = Field extends ViewField<infer Row> ? keyof Row : never;

/** Every column some field of the view reads (a column that is not in `orders` does not compile). */
export type PartnerOrderColumn = { [Name in keyof typeof FIELDS]: ColumnsOf<(typeof FIELDS)[Name]> }[keyof typeof FIELDS];

/** An order as a partner reads it: the columns its view is made of, and nothing else. */
export type PartnerOrderRow = Pick<OrderRow, PartnerOrderColumn>;

/**
 * The fields in the order they are written. The annotation is the type check of the table: each
 * field's row type must be what PartnerOrderRow holds for those columns (a nullable column
 * shown as never null does not compile).
 */
export const PARTNER_ORDER_FIELDS: ReadonlyArray<readonly [name: string, field: ViewField<PartnerOrderRow>]> = Object.entries(FIELDS);

/** What the view's query selects, each column once, in the order the fields first read them. */
export const PARTNER_ORDER_COLUMNS: readonly PartnerOrderColumn[] = [
  ...new Set(PARTNER_ORDER_FIELDS.flatMap(([, field]) => field.columns)),
];

/** Per field, its key as written (`{"id":`, `,"short_id":`, …) once, and its writer. */
const WRITERS = PARTNER_ORDER_FIELDS.map(([name, field], i) => [`${i === 0 ? '{' : ','}${writeString(name)}:`, field.json] as const);

/**
 * The JSON text of the partner's view of `order` at `now`, byte for byte what toJson writes for
 * routes/v1/order-view.ts's orderView, without building the object: the GET
 * /partner/orders/{id} hot path (bench/README.md) and the Order in every webhook body.
 */
export function partnerOrderJson(order: PartnerOrderRow, now: Date, base: LinkBase): string {
  let text = '';
  for (const [key, write] of WRITERS) text += key + write(order, now, base);
  return `${text}}`;
}

/** An order as the wire query reads it: timestamps as ISO text, NUMERIC as trim_scale's text. */
export type PartnerOrderWireRow = WireRow<PartnerOrderRow>;

const WIRE_SQL: Readonly<Partial<Record<PartnerOrderColumn, WireSql>>> = Object.assign(
  {},
  ...PARTNER_ORDER_FIELDS.map(([, field]) => field.sql),
) as Partial<Record<PartnerOrderColumn, WireSql>>;

/**
 * The select list of the wire row: the view's columns, each timestamp as its ISO 8601 text in
 * UTC (to_char truncates to milliseconds as a JavaScript Date does) and each NUMERIC as the JSON
 * number the view writes (trim_scale drops the scale's trailing zeros, as decimalTextLiteral
 * does). Other columns are read as they are.
 */
export const PARTNER_ORDER_WIRE_SELECT: ReadonlyArray<readonly [column: PartnerOrderColumn, expression: string]> = PARTNER_ORDER_COLUMNS.map(
  (name) => {
    switch (WIRE_SQL[name]) {
      case 'time':
        return [name, `to_char("${name}" at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`];
      case 'decimal':
        return [name, `trim_scale("${name}")::text`];
      case undefined:
        return [name, `"${name}"`];
    }
  },
);

const WIRE_WRITERS = PARTNER_ORDER_FIELDS.map(([name, field], i) => [`${i === 0 ? '{' : ','}${writeString(name)}:`, field.wire] as const);

/**
 * partnerOrderJson(order, now, base) from the wire row of that order: byte for byte the same text,
 * with no Date or decimal made per row (GET /partner/orders/{id}).
 */
export function partnerOrderWireJson(order: PartnerOrderWireRow, now: Date, base: LinkBase): string {
  const nowIso = now.toISOString();
  let text = '';
  for (const [key, write] of WIRE_WRITERS) text += key + write(order, nowIso, base);
  return `${text}}`;
}

/**
 * The list's Order made by PostgreSQL (GET /partner/orders): each field's JSON text as an SQL
 * expression of its columns, the same text the field's writers make, so a page row arrives as a
 * few ready runs of the Order's bytes instead of one value per column. Four fields are left to
 * their writers here: `status` and `actions` read the clock's now through the lifecycle table
 * (domain/order-lifecycle.ts, never a second copy of its rules in SQL), `status_url` the link
 * base, and `metadata` its keys in JavaScript's order (docs: stringMap above), which no SQL
 * collation gives. test/orders/order-list-json.test.ts compares the bytes with
 * partnerOrderWireJson over varied orders on both engines.
 */
const WRITTEN_HERE: ReadonlySet<string> = new Set(['status', 'actions', 'status_url', 'metadata']);

const sqlText = (c: string): string => `to_json("${c}")::text`;
const sqlTime = (c: string): string => `'"' || to_char("${c}" at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"'`;
const sqlDecimal = (c: string): string => `trim_scale("${c}")::text`;
const sqlInteger = (c: string): string => `"${c}"::text`;
const orNull = (c: string, expression: string): string => `case when "${c}" is null then 'null' else ${expression} end`;
const sqlPaidOut = (c: string): string => `case when "payout_txid" is not null and "${c}" is not null then ${sqlDecimal(c)} else 'null' end`;
const sqlFee = (amount: string, usd: string, condition: string): string =>
  `case when ${condition}"${amount}" is not null and "${usd}" is not null then ` +
  `'{"amount":' || ${sqlDecimal(amount)} || ',"coin":' || ${sqlText('coin_to')} || ',"usd":' || ${sqlDecimal(usd)} || '}' else 'null' end`;

/** Per field PostgreSQL writes, its JSON text as SQL (the field's `wire` writer, in SQL). */
const FIELD_SQL: Readonly<Record<string, string>> = {
  id: sqlText('id'),
  short_id: sqlText('short_id'),
  created_at: sqlTime('created_at'),
  expires_at: sqlTime('expires_at'),
  updated_at: sqlTime('updated_at'),
  coin_from: sqlText('coin_from'),
  network_from: sqlText('network_from'),
  coin_to: sqlText('coin_to'),
  network_to: sqlText('network_to'),
  amount_from_expected: sqlDecimal('amount_from_expected'),
  amount_to_expected: sqlDecimal('amount_to_expected'),
  rate_type: sqlText('rate_type'),
  rate_quoted: sqlDecimal('rate_quoted'),
  amount_to_final: sqlPaidOut('amount_to_final'),
  rate_final: sqlPaidOut('rate_final'),
  network_fee: sqlFee('network_fee', 'network_fee_usd', ''),
  eta_seconds: orNull('eta_seconds', sqlInteger('eta_seconds')),
  deposit_address: sqlText('deposit_address'),
  deposit_address_tag: orNull('deposit_address_tag', sqlText('deposit_address_tag')),
  deposit_uri: orNull('deposit_uri', sqlText('deposit_uri')),
  recipient_address: sqlText('recipient_address'),
  recipient_address_tag: orNull('recipient_address_tag', sqlText('recipient_address_tag')),
  refund_address: orNull('refund_address', sqlText('refund_address')),
  refund_address_tag: orNull('refund_address_tag', sqlText('refund_address_tag')),
  deposit_txid: orNull('deposit_txid', sqlText('deposit_txid')),
  deposit_confirmations: orNull('deposit_confirmations', sqlInteger('deposit_confirmations')),
  deposit_confirmations_required: sqlInteger('deposit_confirmations_required'),
  payout_txid: orNull('payout_txid', sqlText('payout_txid')),
  amount_from_received: orNull('amount_from_received', sqlDecimal('amount_from_received')),
  refund_txid: orNull('refund_txid', sqlText('refund_txid')),
  amount_refunded: orNull('amount_refunded', sqlDecimal('amount_refunded')),
  status_reason: orNull('status_reason', sqlText('status_reason')),
  sandbox: `case when "sandbox" then 'true' else 'false' end`,
  refund_hold_until: orNull('refund_hold_until', sqlTime('refund_hold_until')),
  partner_fee: sqlFee('partner_fee', 'partner_fee_usd', `"status" <> 'failed' and `),
  external_id: orNull('external_id', sqlText('external_id')),
  version: sqlInteger('version'),
};

/** A run of the Order's bytes PostgreSQL writes (`j0`, `j1`, …), or a field written here. */
type ListPart = { sql: string; alias: string } | { key: string; write: ViewField<PartnerOrderRow>['wire'] };

const LIST_PARTS: readonly ListPart[] = (() => {
  const parts: ListPart[] = [];
  let run: string[] = [];
  const close = () => {
    if (run.length === 0) return;
    parts.push({ sql: run.join(' || '), alias: `j${parts.filter((part) => 'sql' in part).length}` });
    run = [];
  };
  for (const [i, [name, field]] of PARTNER_ORDER_FIELDS.entries()) {
    const key = `${i === 0 ? '{' : ','}${writeString(name)}:`;
    if (WRITTEN_HERE.has(name)) {
      close();
      parts.push({ key, write: field.wire });
      continue;
    }
    const expression = FIELD_SQL[name];
    if (expression === undefined) throw new Error(`the Order's field ${name} has no SQL text for the list (views/partner-order-view.ts FIELD_SQL)`);
    // Keys are plain ASCII names: nothing to escape in an SQL string literal.
    run.push(`'${key}'`, `(${expression})`);
  }
  close();
  return parts;
})();

/** The columns the fields written here read (in the wire row's form), and the cursor's id and created_at. */
const LIST_COLUMNS: ReadonlySet<PartnerOrderColumn> = new Set<PartnerOrderColumn>([
  'id',
  'created_at',
  ...PARTNER_ORDER_FIELDS.filter(([name]) => WRITTEN_HERE.has(name)).flatMap(([, field]) => field.columns),
]);

/**
 * The list's select: the runs of bytes PostgreSQL writes (`j0`…) and the wire columns the fields
 * written here and the cursor read (PARTNER_ORDER_WIRE_SELECT's expressions).
 */
export const PARTNER_ORDER_LIST_SELECT: ReadonlyArray<readonly [alias: string, expression: string]> = [
  ...LIST_PARTS.flatMap((part) => ('sql' in part ? [[part.alias, part.sql] as const] : [])),
  ...PARTNER_ORDER_WIRE_SELECT.filter(([column]) => LIST_COLUMNS.has(column)),
];

/** A list row: the Order's runs of bytes by alias, and the columns read here (wire form). */
export type PartnerOrderListRow = Pick<PartnerOrderWireRow, 'id' | 'created_at'> & Record<string, unknown>;

/** partnerOrderWireJson's bytes from a list row: PostgreSQL's runs with the four fields written here between them. */
export function partnerOrderListJson(row: PartnerOrderListRow, now: Date, base: LinkBase): string {
  const nowIso = now.toISOString();
  const wire = row as unknown as PartnerOrderWireRow;
  let text = '';
  for (const part of LIST_PARTS) text += 'sql' in part ? (row[part.alias] as string) : part.key + part.write(wire, nowIso, base);
  return `${text}}`;
}
