import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import fc from 'fast-check';
import {
  PARTNER_ORDER_COLUMNS,
  PARTNER_ORDER_FIELDS,
  PARTNER_ORDER_WIRE_SELECT,
  partnerOrderWireJson,
  type PartnerOrderRow,
  type PartnerOrderWireRow,
} from '../../src/views/partner-order-view.js';
import { ORDER_STATUSES } from '../../src/domain/order-status.js';
import { decimalTextLiteral, toJson } from '../../src/json.js';
import { OrderSchema, orderJson, orderView } from '../../src/routes/v1/order-view.js';

/**
 * The partner's order view is one table (views/partner-order-view.ts); its schema, its view
 * object and its direct writer are derived from it. The writer writes what toJson writes for
 * the view object, byte for byte, and that is valid against the schema, for any row.
 */

const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));
/** Any text: lone surrogates, controls, quotes and backslashes included. */
const text = fc.oneof(fc.string(), fc.string({ unit: codeUnit }), fc.string({ unit: fc.constantFrom('"', '\\', '\u0000', '\u001f', '\u2028', '\ud800', '💩', 'a') }));

/** NUMERIC(38, 18) as PostgreSQL writes it, or with a shorter scale. */
const numeric = fc
  .tuple(fc.bigInt({ min: -(10n ** 38n) + 1n, max: 10n ** 38n - 1n }), fc.integer({ min: 0, max: 18 }))
  .map(([units, scale]) => {
    const digits = (units < 0n ? -units : units).toString().padStart(scale + 1, '0');
    const sign = units < 0n ? '-' : '';
    return scale === 0 ? `${sign}${digits}` : `${sign}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  });

const time = fc.date({ min: new Date('2000-01-01T00:00:00.000Z'), max: new Date('2100-01-01T00:00:00.000Z'), noInvalidDate: true });
const count = fc.integer({ min: 0, max: 2 ** 31 - 1 });
/** Where the Order's links begin: PUBLIC_URL, or '' (relative links). */
const linkBase = fc.constantFrom('', 'https://exchange.example', 'http://localhost:3000');
/** A status page token as the service or migration 0050 makes it. */
const statusToken = fc.oneof(fc.base64String({ minLength: 32, maxLength: 32 }).map((t) => t.replace(/[+/=]/g, '_')), fc.stringMatching(/^[0-9a-f]{64}$/));

const row: fc.Arbitrary<PartnerOrderRow> = fc.record({
  id: fc.uuid(),
  short_id: text,
  status: fc.constantFrom(...ORDER_STATUSES),
  created_at: time,
  expires_at: time,
  updated_at: time,
  version: count,
  coin_from: text,
  network_from: text,
  coin_to: text,
  network_to: text,
  amount_from_expected: numeric,
  amount_to_expected: numeric,
  rate_type: fc.constantFrom('float' as const, 'fixed' as const),
  rate_quoted: numeric,
  deposit_address: text,
  deposit_address_tag: fc.option(text),
  deposit_uri: fc.option(text),
  recipient_address: text,
  recipient_address_tag: fc.option(text),
  deposit_txid: fc.option(text),
  deposit_confirmations: fc.option(count),
  deposit_confirmations_required: count,
  payout_txid: fc.option(text),
  amount_from_received: fc.option(numeric),
  refund_txid: fc.option(text),
  status_reason: fc.option(text),
  sandbox: fc.boolean(),
  refund_address: fc.option(text),
  refund_address_tag: fc.option(text),
  refund_hold_until: fc.option(time),
  partner_fee: fc.option(numeric),
  partner_fee_usd: fc.option(numeric),
  amount_to_final: fc.option(numeric),
  rate_final: fc.option(numeric),
  amount_refunded: fc.option(numeric),
  network_fee: fc.option(numeric),
  network_fee_usd: fc.option(numeric),
  eta_seconds: fc.option(count),
  external_id: fc.option(text),
  // Keys in any order, as jsonb or a request gives them: both writers sort them.
  metadata: fc.dictionary(text, text, { maxKeys: 10 }),
  status_token: statusToken,
});

function validator() {
  const ajv = new Ajv({ strict: false });
  (formats as unknown as { default: (ajv: Ajv) => void }).default(ajv);
  return ajv.compile(OrderSchema);
}

describe('the partner order view: one definition, schema and writer derived from it', () => {
  it('the direct writer writes toJson(orderView(row)) byte for byte, valid against the Order schema', () => {
    const validate = validator();
    fc.assert(
      fc.property(row, time, linkBase, (order, now, base) => {
        const written = orderJson(order, now, base);
        assert.equal(written, toJson(orderView(order, now, base)));
        const parsed = JSON.parse(written) as unknown;
        assert.ok(validate(parsed), JSON.stringify(validate.errors));
      }),
      { numRuns: 500 },
    );
  });

  it('the wire writer (GET: times and amounts as the database writes them as text) writes the same bytes', () => {
    // What PARTNER_ORDER_WIRE_SELECT's to_char and trim_scale make of each column
    // (test/orders/order-view-bytes.test.ts checks them against the database).
    const wire = (order: PartnerOrderRow): PartnerOrderWireRow => {
      const decimal = (value: string | null) => (value === null ? null : decimalTextLiteral(value));
      return {
        ...order,
        created_at: order.created_at.toISOString(),
        expires_at: order.expires_at.toISOString(),
        updated_at: order.updated_at.toISOString(),
        refund_hold_until: order.refund_hold_until?.toISOString() ?? null,
        amount_from_expected: decimalTextLiteral(order.amount_from_expected),
        amount_to_expected: decimalTextLiteral(order.amount_to_expected),
        rate_quoted: decimalTextLiteral(order.rate_quoted),
        amount_from_received: decimal(order.amount_from_received),
        partner_fee: decimal(order.partner_fee),
        partner_fee_usd: decimal(order.partner_fee_usd),
        amount_to_final: decimal(order.amount_to_final),
        rate_final: decimal(order.rate_final),
        amount_refunded: decimal(order.amount_refunded),
        network_fee: decimal(order.network_fee),
        network_fee_usd: decimal(order.network_fee_usd),
      };
    };
    // Times near one another, so expiry and hold fall on either side of now (and on it).
    const near = fc.integer({ min: -3, max: 3 }).map((ms) => new Date(Date.UTC(2026, 5, 15, 12) + ms));
    const nearRow = fc.record({ order: row, expires: near, hold: fc.option(near), now: near }).map(({ order, expires, hold, now }) => ({
      order: { ...order, expires_at: expires, refund_hold_until: hold },
      now,
    }));
    fc.assert(
      fc.property(fc.oneof(nearRow, fc.record({ order: row, now: time })), linkBase, ({ order, now }, base) => {
        assert.equal(partnerOrderWireJson(wire(order), now, base), orderJson(order, now, base));
      }),
      { numRuns: 1000 },
    );
    const selected = new Map(PARTNER_ORDER_WIRE_SELECT);
    assert.deepEqual([...selected.keys()], PARTNER_ORDER_COLUMNS);
    for (const column of ['created_at', 'expires_at', 'refund_hold_until'] as const) assert.match(selected.get(column) ?? '', /^to_char\(/, column);
    for (const column of ['amount_from_expected', 'amount_to_expected', 'rate_quoted', 'amount_from_received', 'partner_fee', 'partner_fee_usd', 'network_fee', 'network_fee_usd'] as const) {
      assert.match(selected.get(column) ?? '', /^trim_scale\(/, column);
    }
  });

  it('a waiting order reads expired from expires_at on; other statuses read as stored', () => {
    const expiresAt = new Date('2026-06-15T12:30:00.000Z');
    const base = fc.sample(row, { numRuns: 1, seed: 1 })[0];
    assert.ok(base !== undefined);
    const status = (stored: PartnerOrderRow['status'], now: Date) =>
      (JSON.parse(orderJson({ ...base, status: stored, expires_at: expiresAt }, now, '')) as { status: string }).status;
    assert.equal(status('waiting_deposit', new Date(expiresAt.getTime() - 1)), 'waiting_deposit');
    assert.equal(status('waiting_deposit', expiresAt), 'expired');
    assert.equal(status('confirming', new Date(expiresAt.getTime() + 1)), 'confirming');
  });

  it('the schema has exactly the fields, all required, in the order written; the query selects their columns and no other', () => {
    const names = PARTNER_ORDER_FIELDS.map(([name]) => name);
    assert.deepEqual(Object.keys(OrderSchema.properties), names);
    assert.deepEqual(OrderSchema.required, names);
    assert.equal(OrderSchema.additionalProperties, false);
    // Each field of this view shows its own column, and no other column is read (status reads
    // expires_at as well, which is a field too), except the computed ones: `actions` (from the
    // status and the refund address and hold columns) and `partner_fee` (amount, usd, coin_to);
    // amount_to_final and rate_final read payout_txid as well, a field too (docs/contract.md §10.1 made
    // refund_address and refund_address_tag fields of their own); `network_fee` (amount, usd,
    // coin_to: docs/contract.md §10.6); status_url (docs/contract.md §10.10) is made of status_token and the link base.
    const computed = new Set(['actions', 'partner_fee', 'network_fee', 'status_url']);
    const extra = ['partner_fee', 'partner_fee_usd', 'network_fee', 'network_fee_usd', 'status_token'];
    assert.deepEqual([...PARTNER_ORDER_COLUMNS].sort(), [...names.filter((name) => !computed.has(name)), ...extra].sort());
  });
});
