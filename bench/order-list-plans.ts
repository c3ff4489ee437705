/**
 * The query plans of GET /partner/orders (DESIGN §7.2) on PostgreSQL with 100,000 orders of 10
 * partners: for each filter, EXPLAIN (ANALYZE, BUFFERS) of the very query the repository builds
 * (partnerOrderListQuery), first page and a page after a cursor. Fails when a plan holds a
 * sequential scan.
 *
 *   node --import tsx bench/order-list-plans.ts          (TEST_DATABASE_URL, default local test server)
 *
 * The database is a fresh one made and dropped here (test/helpers/test-database.ts).
 */
import { randomUUID } from 'node:crypto';
import { CompiledQuery } from 'kysely';
import {
  partnerOrderListQuery,
  type OrderListPage,
  type PartnerOrderFilter,
} from '../src/db/repositories/partner-order-list-repository.js';
import type { NewOrder } from '../src/db/schema/orders.js';
import { ORDER_STATUSES } from '../src/domain/order-status.js';
import { createTestDatabase } from '../test/helpers/test-database.js';

const ORDERS = 100_000;
const PARTNERS = 10;
const BATCH = 2_000;
const DAY_MS = 86_400_000;

const database = await createTestDatabase('postgres');
const db = database.handle.db;
try {
  const currencies = await db.selectFrom('currencies').select(['id', 'coin', 'network']).where('is_active', '=', true).execute();
  const partners = await db
    .insertInto('partners')
    .values(Array.from({ length: PARTNERS }, (_, i) => ({ name: `bench partner ${i + 1}` })))
    .returning('id')
    .execute();

  // 100,000 orders over 30 days, spread over partners, statuses and the catalog's pairs.
  const start = Date.parse('2026-06-01T00:00:00.000Z');
  const sample: NewOrder[] = [];
  for (let base = 0; base < ORDERS; base += BATCH) {
    const rows: NewOrder[] = [];
    for (let n = base; n < Math.min(ORDERS, base + BATCH); n++) {
      // Pairs and statuses vary independently of the partner (n % PARTNERS).
      const group = Math.floor(n / PARTNERS);
      const from = currencies[group % currencies.length];
      const to = currencies[(group * 5 + 3) % currencies.length];
      const partner = partners[n % PARTNERS];
      if (from === undefined || to === undefined || partner === undefined) throw new Error('empty catalog');
      const status = ORDER_STATUSES[(group >> 2) % ORDER_STATUSES.length] ?? 'completed';
      const createdAt = new Date(start + Math.floor((n / ORDERS) * 30 * DAY_MS));
      const seen = status !== 'waiting_deposit' && status !== 'expired';
      const row: NewOrder = {
        id: randomUUID(),
        short_id: `B-${n.toString(36).toUpperCase().padStart(6, '0')}`,
        partner_id: partner.id,
        status,
        status_reason: null,
        version: 0,
        currency_from_id: from.id,
        currency_to_id: to.id,
        coin_from: from.coin,
        network_from: from.network,
        coin_to: to.coin,
        network_to: to.network,
        rate_type: n % 4 === 0 ? 'fixed' : 'float',
        amount_from_expected: '0.5',
        amount_to_expected: '12.25',
        rate_quoted: '24.5',
        exact_rate: '24.5',
        quote_id: null,
        deposit_address: `bench-deposit-${n}`,
        deposit_address_tag: null,
        recipient_address: `bench-recipient-${n % 5000}`,
        recipient_address_tag: null,
        refund_address: null,
        deposit_txid: seen ? `bench-deposit-tx-${n}` : null,
        deposit_confirmations: seen ? 6 : null,
        deposit_confirmations_required: 6,
        amount_from_received: seen ? '0.5' : null,
        payout_txid: status === 'completed' ? `bench-payout-tx-${n}` : null,
        refund_txid: null,
        created_at: createdAt,
        expires_at: new Date(createdAt.getTime() + 30 * 60_000),
        updated_at: createdAt,
      };
      rows.push(row);
      if (n === 31_337 || (n % PARTNERS === 31_337 % PARTNERS && row.payout_txid !== null && row.deposit_txid !== null)) sample.push(row);
    }
    await db.insertInto('orders').values(rows).execute();
  }
  await db.executeQuery(CompiledQuery.raw('analyze orders'));

  const [a, b] = sample;
  if (a === undefined || b === undefined) throw new Error('no sample orders');
  const partnerId = a.partner_id;
  const now = new Date(start + 31 * DAY_MS);
  const after = { createdAt: new Date(start + 20 * DAY_MS), id: a.id };
  // Each filter lists live orders (GET /partner/orders' default) unless it says sandbox.
  const cases: Array<[string, Omit<PartnerOrderFilter, 'sandbox'> & { sandbox?: boolean }, Partial<OrderListPage>]> = [
    ['no filter, first page', {}, {}],
    ['sandbox=true (test orders)', { sandbox: true }, {}],
    ['no filter, after a cursor', {}, { after }],
    ['status=completed', { statuses: ['completed'] }, {}],
    ['status=waiting_deposit,expired (as read at now)', { statuses: ['waiting_deposit', 'expired'] }, { after }],
    ['coin_from=BTC', { coinFrom: 'BTC' }, {}],
    ['coin_to=USDT, after a cursor', { coinTo: 'USDT' }, { after }],
    ['created_after + created_before (one day)', { createdAfter: new Date(start + 10 * DAY_MS), createdBefore: new Date(start + 11 * DAY_MS) }, {}],
    ['search=id', { search: a.id, searchId: a.id }, {}],
    ['search=short id', { search: a.short_id, searchShortId: a.short_id }, {}],
    ['search=deposit address', { search: a.deposit_address }, {}],
    ['search=deposit txid', { search: String(b.deposit_txid) }, {}],
    ['search=payout txid', { search: String(b.payout_txid) }, {}],
    ['search=recipient address', { search: a.recipient_address }, {}],
    ['status + coin_from + created range', { statuses: ['completed', 'refunded'], coinFrom: 'ETH', createdAfter: new Date(start + 5 * DAY_MS) }, {}],
  ];

  let seqScans = 0;
  console.log(`# GET /partner/orders plans: ${ORDERS} orders, ${PARTNERS} partners (${ORDERS / PARTNERS} each), PostgreSQL`);
  for (const [name, filter, page] of cases) {
    const compiled = partnerOrderListQuery(db, partnerId, { sandbox: false, ...filter }, { limit: 21, now, ...page }).compile();
    const result = await db.executeQuery<{ 'QUERY PLAN': string }>(
      CompiledQuery.raw(`explain (analyze, buffers, costs off, timing off, summary off) ${compiled.sql}`, [...compiled.parameters]),
    );
    const plan = result.rows.map((row) => row['QUERY PLAN']).join('\n');
    const seq = /Seq Scan/.test(plan);
    if (seq) seqScans += 1;
    console.log(`\n## ${name}${seq ? '  <-- SEQUENTIAL SCAN' : ''}\n${plan}`);
  }
  console.log(`\n${seqScans === 0 ? 'no sequential scan in any plan' : `${seqScans} plan(s) with a sequential scan`}`);
  process.exitCode = seqScans === 0 ? 0 : 1;
} finally {
  await database.drop();
}
