import { Type } from '@sinclair/typebox';
import { parse } from 'lossless-json';
import { toJson, writeString } from '../json.js';
import type { OrderRow } from '../db/schema/orders.js';
import { ORDER_VIEW_FIELDS, type ViewField } from './partner-order-view.js';

/**
 * The end user's view of an order (docs/contract.md §10.10): what GET /api/v1/public/orders/{token} answers
 * and the status page (/status/{token}) shows, to whoever holds the link. Exactly these fields,
 * each written as the Order writes it (the same field definitions): the order's own amounts,
 * addresses and status, nothing of the partner (no id, no recipient or refund address, no fee,
 * no mode).
 */
const PUBLIC_FIELD_NAMES = [
  'short_id',
  'status',
  'coin_from',
  'network_from',
  'coin_to',
  'network_to',
  'amount_from_expected',
  'amount_to_expected',
  'amount_to_final',
  'deposit_address',
  'deposit_address_tag',
  'deposit_uri',
  'deposit_txid',
  'payout_txid',
  'refund_txid',
  'expires_at',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof typeof ORDER_VIEW_FIELDS)[];

type PublicFieldName = (typeof PUBLIC_FIELD_NAMES)[number];
type ColumnsOf<Field> = Field extends ViewField<infer Row> ? keyof Row : never;
type PublicOrderColumn = { [Name in PublicFieldName]: ColumnsOf<(typeof ORDER_VIEW_FIELDS)[Name]> }[PublicFieldName];

/** An order as its public view reads it: the columns of those fields, nothing else. */
export type PublicOrderRow = Pick<OrderRow, PublicOrderColumn>;

const PUBLIC_FIELDS: ReadonlyArray<readonly [name: PublicFieldName, field: ViewField<PublicOrderRow>]> = PUBLIC_FIELD_NAMES.map(
  (name) => [name, ORDER_VIEW_FIELDS[name] as ViewField<PublicOrderRow>] as const,
);

/** What the token lookup selects. */
export const PUBLIC_ORDER_COLUMNS: readonly PublicOrderColumn[] = [...new Set(PUBLIC_FIELDS.flatMap(([, field]) => field.columns))];

/** The response schema (`PublicOrder` in OpenAPI). */
export const PublicOrderSchema = Type.Object(Object.fromEntries(PUBLIC_FIELDS.map(([name, field]) => [name, field.schema])), {
  $id: 'PublicOrder',
  additionalProperties: false,
  description:
    'v1.2: an order as its end user may see it through the status link (docs/contract.md §10.10): its amounts, addresses and status only',
});

/** The public view as a value for toJson (amounts as DecimalText, written as exact numbers). */
export function publicOrderView(order: PublicOrderRow, now: Date): Record<PublicFieldName, unknown> {
  const view: Partial<Record<PublicFieldName, unknown>> = {};
  // No field of this view is a link, so the link base is never read.
  for (const [name, field] of PUBLIC_FIELDS) view[name] = field.value(order, now, '');
  return view as Record<PublicFieldName, unknown>;
}

/** Per field, its key as written (`{"short_id":`, `,"status":`, …) and its writer. */
const WRITERS = PUBLIC_FIELDS.map(([name, field], i) => [`${i === 0 ? '{' : ','}${writeString(name)}:`, field.json] as const);

/** The JSON text of publicOrderView(order, now), byte for byte what toJson writes for it. */
export function publicOrderJson(order: PublicOrderRow, now: Date): string {
  let text = '';
  // No field of this view is a link, so the link base is never read.
  for (const [key, write] of WRITERS) text += key + write(order, now, '');
  return `${text}}`;
}

/**
 * The public view's JSON text from the Order's (partnerOrderJson at the same moment): the same
 * fields written by the same writers, so the public one is the partner one's fields picked, its
 * numbers kept as the exact text they were written as (the status stream's public events, from a
 * stored or notified Order: docs/contract.md §10.11).
 */
export function publicJsonFromOrderJson(orderJson: string): string {
  // lossless-json keeps every number as a LosslessNumber (its text), which toJson writes as it was.
  const order = parse(orderJson) as Record<string, unknown>;
  const picked: Record<string, unknown> = {};
  for (const name of PUBLIC_FIELD_NAMES) picked[name] = order[name];
  return toJson(picked);
}
