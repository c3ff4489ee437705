/**
 * The query plans of GET /partner/orders (docs/contract.md §7.2) on PostgreSQL with 100,000 orders of 10
 * partners: for each filter, EXPLAIN (ANALYZE, BUFFERS) of the very query the repository builds
 * (partnerOrderListWireQuery, what GET /partner/orders runs), first page and a page after a
 * cursor. Fails when a plan holds a sequential scan or reads more than MAX_PAGE_BUFFERS pages.
 *
 *   node --import tsx bench/order-list-plans.ts          (TEST_DATABASE_URL, default local test server)
 *
 * The database is a fresh one made and dropped here (test/helpers/test-database.ts).
 */
import { CompiledQuery } from 'kysely';
import {
  partnerOrderListWireQuery,
  type OrderListPage,
  type PartnerOrderFilter,
} from '../src/db/repositories/partner-order-list-repository.js';
import { createTestDatabase } from '../test/helpers/test-database.js';
import { DAY_MS, SEED_ORDERS, SEED_PARTNERS, SEED_START, seedOrders } from './order-list-seed.js';

const ORDERS = SEED_ORDERS;
const PARTNERS = SEED_PARTNERS;
const start = SEED_START;
/** Pages (8 kB buffers) a page of the list may read; the plans here read 2 to 100. */
const MAX_PAGE_BUFFERS = 1_000;

const database = await createTestDatabase('postgres');
const db = database.handle.db;
try {
  const partners = await db
    .insertInto('partners')
    .values(Array.from({ length: PARTNERS }, (_, i) => ({ name: `bench partner ${i + 1}` })))
    .returning('id')
    .execute();
  const {
    sample: [a, b],
  } = await seedOrders(
    db,
    partners.map((partner) => partner.id),
  );
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
    // Hex values match in any case (domain/order-search.ts): each column is compared with three
    // spellings (IN), still an equality on its index. No seeded order has one: the plan is the point.
    ['search=EVM address in lower case (3 spellings)', { search: `0x${'5aaeb6053f3e94c9b9a09f33669435e7ef1beaed'}` }, {}],
    ['search=hex txid in upper case (3 spellings)', { search: 'AB'.repeat(32) }, {}],
    ['status + coin_from + created range', { statuses: ['completed', 'refunded'], coinFrom: 'ETH', createdAfter: new Date(start + 5 * DAY_MS) }, {}],
  ];

  let seqScans = 0;
  let heavyPlans = 0;
  console.log(`# GET /partner/orders plans: ${ORDERS} orders, ${PARTNERS} partners (${ORDERS / PARTNERS} each), PostgreSQL`);
  for (const [name, filter, page] of cases) {
    const compiled = partnerOrderListWireQuery(db, partnerId, { sandbox: false, ...filter }, { limit: 21, now, ...page }).compile();
    const result = await db.executeQuery<{ 'QUERY PLAN': string }>(
      CompiledQuery.raw(`explain (analyze, buffers, costs off, timing off, summary off) ${compiled.sql}`, [...compiled.parameters]),
    );
    const plan = result.rows.map((row) => row['QUERY PLAN']).join('\n');
    const seq = /Seq Scan/.test(plan);
    if (seq) seqScans += 1;
    // The page's whole plan reads (its top node's buffers): a page of 21 orders served by an
    // index reads tens of pages; one that sorts every order of the partner reads thousands.
    const topBuffers = /Buffers:.*$/m.exec(plan)?.[0] ?? '';
    const buffers = [...topBuffers.matchAll(/(?:hit|read)=(\d+)/g)].reduce((sum, match) => sum + Number(match[1]), 0);
    const heavy = buffers > MAX_PAGE_BUFFERS;
    if (heavy) heavyPlans += 1;
    console.log(`\n## ${name}${seq ? '  <-- SEQUENTIAL SCAN' : ''}${heavy ? `  <-- READS ${buffers} PAGES` : ''}\n${plan}`);
  }
  console.log(`\n${seqScans === 0 ? 'no sequential scan in any plan' : `${seqScans} plan(s) with a sequential scan`}`);
  console.log(heavyPlans === 0 ? `no plan reads more than ${MAX_PAGE_BUFFERS} pages` : `${heavyPlans} plan(s) read more than ${MAX_PAGE_BUFFERS} pages`);
  process.exitCode = seqScans === 0 && heavyPlans === 0 ? 0 : 1;
} finally {
  await database.drop();
}
